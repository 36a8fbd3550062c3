//! Sets up several contestants at once as their [`Plan`] says: the one Debian install runs
//! beside the lanes, each lane's contestants one after another (those waiting for a
//! package once it is in), the lanes in parallel. A failure is that contestant's alone.

use crate::contestant::manifest::Contestant;
use crate::contestant::setup::{self, SetupError};
use crate::contestant::setup_plan::{self, Plan, Task};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

/// How one contestant's set-up ended.
#[derive(Debug)]
pub struct Outcome<'c> {
    pub contestant: &'c Contestant,
    pub result: Result<(), SetupError>,
    /// Its own set-up, from its turn in its lane, waiting for its packages included.
    pub took: Duration,
}

/// Installs Debian packages, logging to a file: [`setup::install_debian`], or a stand-in.
pub type Install<'a> = dyn Fn(&[String], &Path) -> Result<(), SetupError> + Sync + 'a;

/// Told of each contestant as soon as its set-up ends.
pub type Done<'a> = dyn Fn(&Outcome) + Sync + 'a;

/// Sets up `contestants`, each logging to `setup.log` in its build folder (the joint
/// Debian install to `apt-get.log` beside the build folders); the outcomes in their order.
pub fn set_up_all<'c>(contestants: &[&'c Contestant], done: &Done) -> Vec<Outcome<'c>> {
    let plan = setup_plan::plan(contestants, setup::debian_installed);
    let mut outcomes = run_plan(plan, &setup::install_debian, done);
    outcomes.sort_by_key(|o| (contestants.iter()).position(|c| std::ptr::eq(*c, o.contestant)));
    outcomes
}

/// Carries out `plan`, installing with `install`.
pub fn run_plan<'c>(plan: Plan<'c>, install: &Install, done: &Done) -> Vec<Outcome<'c>> {
    let apt_log = apt_log(&plan);
    std::thread::scope(|s| {
        let mut waiting = Vec::new();
        let mut lanes = Vec::new();
        for lane in plan.lanes {
            let (tx, rx) = channel();
            let needs: Vec<Need> = (lane.iter().filter(|t| !t.missing.is_empty()))
                .map(|t| (t.missing.clone(), setup_log(t.contestant)))
                .collect();
            waiting.push((needs, tx));
            lanes.push(s.spawn(move || run_lane(lane, rx, done)));
        }
        let debian = &plan.debian;
        s.spawn(move || install_for(debian, &apt_log, waiting, install));
        (lanes.into_iter())
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// A contestant's missing packages and its log, for installing them alone.
type Need = (Vec<String>, PathBuf);

/// Whether a waiting contestant's packages are in.
type Installed = Result<(), SetupError>;

/// Installs every package at once, then tells each waiting contestant, in its lane's
/// order, whether its packages are in. When the joint install fails, each contestant's
/// packages are installed alone, so that one package that cannot be had fails only the
/// contestant that asked for it.
fn install_for(
    debian: &[String],
    log: &Path,
    waiting: Vec<(Vec<Need>, Sender<Installed>)>,
    install: &Install,
) {
    if let Some(folder) = log.parent() {
        // The build folders are being made by the lanes; a failure shows in the log's.
        let _ = std::fs::create_dir_all(folder);
    }
    let joint_ok = debian.is_empty() || install(debian, log).is_ok();
    for (needs, tx) in waiting {
        for (missing, own_log) in needs {
            let result = match joint_ok {
                true => Ok(()),
                false => install(&missing, &own_log),
            };
            // A lane that is gone (it panicked) has nobody left to tell.
            let _ = tx.send(result);
        }
    }
}

/// Sets up a lane's contestants one after another; those with missing packages first
/// wait for `installed` to say whether they are in.
fn run_lane<'c>(
    lane: Vec<Task<'c>>,
    installed: Receiver<Installed>,
    done: &Done,
) -> Vec<Outcome<'c>> {
    let mut outcomes = Vec::new();
    for task in lane {
        let t0 = Instant::now();
        let c = task.contestant;
        // Its log lives in the build folder; a folder that cannot be made fails the log.
        let _ = std::fs::create_dir_all(&c.build);
        let packages = match task.missing.is_empty() {
            true => Ok(()),
            false => installed.recv().unwrap_or(Err(SetupError::InstallLost)),
        };
        let result = packages.and_then(|()| setup::build(c, &setup_log(c)));
        let outcome = Outcome {
            contestant: c,
            result,
            took: t0.elapsed(),
        };
        done(&outcome);
        outcomes.push(outcome);
    }
    outcomes
}

fn setup_log(c: &Contestant) -> PathBuf {
    c.build.join("setup.log")
}

/// `apt-get.log` beside the build folder of the first contestant that needs a package.
fn apt_log(plan: &Plan) -> PathBuf {
    let first = (plan.lanes.iter().flatten()).find(|t| !t.missing.is_empty());
    let folder = first.and_then(|t| t.contestant.build.parent());
    // None waits for a package: nothing is installed, nothing logged.
    (folder.map(Path::to_path_buf))
        .unwrap_or_else(std::env::temp_dir)
        .join("apt-get.log")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contestant::setup::CommandError;
    use crate::contestant::setup_fixture::{self, Fake};
    use std::os::unix::process::ExitStatusExt;
    use std::sync::Mutex;

    /// A fresh folder for one test's contestants and builds.
    fn folder(tag: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("shootout-setup-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        dir
    }

    /// A contestant whose toolchain (its lane) is `tool`.
    fn contestant(dir: &Path, name: &str, tool: &str, debian: &[&str], build: &str) -> Contestant {
        let fake = Fake {
            commands: &[tool],
            debian,
            build,
            ..Fake::default()
        };
        let c = setup_fixture::contestant(name, dir, fake);
        std::fs::create_dir_all(&c.dir).expect("its folder");
        c
    }

    /// Stands in for apt-get: notes each install, writes `installed-PACKAGE` files into
    /// `dir`, and fails any install that asks for `no-such-package`.
    struct FakeApt {
        dir: PathBuf,
        calls: Mutex<Vec<Vec<String>>>,
    }

    impl FakeApt {
        fn install(&self, packages: &[String], _log: &Path) -> Result<(), SetupError> {
            self.calls.lock().expect("calls").push(packages.to_vec());
            if packages.iter().any(|p| p == "no-such-package") {
                return Err(SetupError::Command {
                    step: format!("apt-get install {}", packages.join(" ")),
                    source: CommandError::Failed {
                        status: std::process::ExitStatus::from_raw(100 << 8),
                        log: PathBuf::from("apt-get.log"),
                    },
                });
            }
            for p in packages {
                std::fs::write(self.dir.join(format!("installed-{p}")), "").expect("marker");
            }
            Ok(())
        }
    }

    fn set_up(dir: &Path, cs: &[Contestant]) -> (Vec<Vec<String>>, Vec<(String, String)>) {
        let apt = FakeApt {
            dir: dir.to_path_buf(),
            calls: Mutex::new(Vec::new()),
        };
        let refs: Vec<&Contestant> = cs.iter().collect();
        let plan = setup_plan::plan(&refs, |_| false);
        let outcomes = run_plan(plan, &|p, l| apt.install(p, l), &|_| {});
        let ended = (outcomes.iter())
            .map(|o| (o.contestant.name().to_string(), error_of(o)))
            .collect();
        (apt.calls.into_inner().expect("calls"), ended)
    }

    fn error_of(o: &Outcome) -> String {
        o.result
            .as_ref()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn one_install_for_all_packages_and_each_builds_after_its_own_are_in() {
        let dir = folder("joint");
        let needs = |p: &str| format!("test -e {}/installed-{p}", dir.display());
        let (a, b) = (needs("libh2o-evloop-dev"), needs("nginx"));
        let cs = [
            contestant(&dir, "c-h2o", "sh", &["libh2o-evloop-dev"], &a),
            contestant(&dir, "nginx-static", "cat", &["nginx"], &b),
            contestant(&dir, "node-http", "ls", &[], "true"),
        ];
        let (calls, ended) = set_up(&dir, &cs);
        assert_eq!(calls, [["libh2o-evloop-dev", "nginx"]]);
        assert!(ended.iter().all(|(_, e)| e.is_empty()), "{ended:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_package_that_cannot_be_had_fails_only_the_contestant_that_asked_for_it() {
        let dir = folder("fallback");
        let cs = [
            contestant(&dir, "bad", "sh", &["no-such-package"], "true"),
            contestant(&dir, "good", "cat", &["nginx"], "true"),
        ];
        let (calls, ended) = set_up(&dir, &cs);
        assert_eq!(calls[0], ["nginx", "no-such-package"], "first all at once");
        assert_eq!(calls.len(), 3, "then each alone: {calls:?}");
        let error = |name: &str| {
            ended
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, e)| e.clone())
        };
        assert_eq!(error("good").as_deref(), Some(""));
        let bad = error("bad").unwrap_or_default();
        assert!(
            bad.starts_with("apt-get install no-such-package: failed"),
            "{bad}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn contestants_of_different_toolchains_build_at_the_same_time() {
        // Each build says it started, then waits (at most 10 s) for the other's word: both
        // succeed only if they run at once.
        let dir = folder("parallel");
        let meet = |me: &str, other: &str| {
            let d = dir.display();
            format!(
                "touch {d}/{me}; i=0; while [ ! -e {d}/{other} ] && [ $i -lt 200 ]; do \
                 sleep 0.05; i=$((i+1)); done; test -e {d}/{other}"
            )
        };
        let (a, b) = (meet("a", "b"), meet("b", "a"));
        let cs = [
            contestant(&dir, "go-x", "sh", &[], &a),
            contestant(&dir, "rust-y", "cat", &[], &b),
        ];
        let (_, ended) = set_up(&dir, &cs);
        assert!(ended.iter().all(|(_, e)| e.is_empty()), "{ended:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_build_names_its_step_and_its_lane_goes_on() {
        let dir = folder("failed");
        let cs = [
            contestant(&dir, "bad", "sh", &[], "exit 3"),
            contestant(&dir, "good", "sh", &[], "true"),
        ];
        let (calls, ended) = set_up(&dir, &cs);
        assert!(calls.is_empty(), "nothing to install: {calls:?}");
        assert!(
            ended[0].1.starts_with("build `exit 3`: failed"),
            "{ended:?}"
        );
        assert_eq!(ended[1], ("good".to_string(), String::new()));
        assert!(setup::built(&cs[1]));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
