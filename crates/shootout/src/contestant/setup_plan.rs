//! How several contestants are set up at once, decided before anything runs: the Debian
//! packages any of them lacks, installed by one `apt-get update` and one `apt-get install`
//! (not one pair per contestant: each pair re-reads the package lists and re-runs dpkg's
//! triggers), and lanes of contestants that set up one after another, one lane per
//! toolchain. Two runs of one tool share its caches, which not every tool can share with
//! itself (Maven's local repository is not safe for two processes at once); two tools
//! share nothing, so the lanes run side by side and the network-bound steps (apt, pip,
//! cargo fetch, go, npm) overlap one another and the compilers.

use crate::contestant::manifest::Contestant;
use crate::contestant::setup;

/// One contestant's set-up, with the Debian packages it waits for.
#[derive(Debug)]
pub struct Task<'c> {
    pub contestant: &'c Contestant,
    /// Its required Debian packages that are not installed: it builds after the install.
    pub missing: Vec<String>,
}

/// What to install and in which order to build.
#[derive(Debug)]
pub struct Plan<'c> {
    /// Every missing Debian package of every contestant that is not blocked, each once,
    /// sorted: the one `apt-get install`.
    pub debian: Vec<String>,
    /// Contestants sharing a toolchain (the first of `requires.commands`), in the order
    /// given except that those waiting for no package come first, so that a lane does not
    /// idle behind the install.
    pub lanes: Vec<Vec<Task<'c>>>,
}

/// The plan for `contestants`; `installed` says whether a Debian package is installed.
pub fn plan<'c>(contestants: &[&'c Contestant], installed: impl Fn(&str) -> bool) -> Plan<'c> {
    let mut debian = Vec::new();
    let mut lanes: Vec<(&str, Vec<Task>)> = Vec::new();
    for &c in contestants {
        // A blocked one fails at once, naming why; its packages are not installed.
        let missing = match c.manifest.blocked.is_empty() {
            true => setup::missing_debian(c, &installed),
            false => Vec::new(),
        };
        debian.extend(missing.iter().cloned());
        let task = Task {
            contestant: c,
            missing,
        };
        let tool = c
            .manifest
            .requires
            .commands
            .first()
            .map_or("", |s| s.as_str());
        match lanes.iter_mut().find(|(t, _)| *t == tool) {
            Some((_, lane)) => lane.push(task),
            None => lanes.push((tool, vec![task])),
        }
    }
    debian.sort();
    debian.dedup();
    let mut lanes: Vec<Vec<Task>> = lanes.into_iter().map(|(_, lane)| lane).collect();
    for lane in &mut lanes {
        lane.sort_by_key(|t| !t.missing.is_empty());
    }
    Plan { debian, lanes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contestant::setup_fixture::{self, Fake};
    use std::path::Path;

    fn contestant(name: &str, commands: &[&str], debian: &[&str], blocked: &str) -> Contestant {
        let fake = Fake {
            commands,
            debian,
            blocked,
            ..Fake::default()
        };
        setup_fixture::contestant(name, Path::new("/nonexistent"), fake)
    }

    fn names<'c>(lane: &[Task<'c>]) -> Vec<&'c str> {
        lane.iter().map(|t| t.contestant.name()).collect()
    }

    #[test]
    fn every_missing_package_of_every_contestant_goes_into_one_install() {
        let cs = [
            contestant("c-epoll", &["gcc"], &["gcc", "libc6-dev"], ""),
            contestant("nginx-static", &["nginx", "sed"], &["nginx"], ""),
            contestant(
                "c-h2o",
                &["gcc"],
                &["libh2o-evloop-dev", "libssl-dev", "gcc"],
                "",
            ),
            contestant("go-nethttp", &["go"], &[], ""),
        ];
        let refs: Vec<&Contestant> = cs.iter().collect();
        let installed = |p: &str| matches!(p, "gcc" | "libc6-dev" | "libssl-dev");
        let plan = plan(&refs, installed);
        assert_eq!(plan.debian, ["libh2o-evloop-dev", "nginx"]);
        let waits: Vec<(&str, &[String])> = (plan.lanes.iter().flatten())
            .map(|t| (t.contestant.name(), t.missing.as_slice()))
            .collect();
        assert!(waits.contains(&("c-h2o", &["libh2o-evloop-dev".to_string()][..])));
        assert!(waits.contains(&("c-epoll", &[][..])));
    }

    #[test]
    fn a_package_two_contestants_need_is_installed_once() {
        let cs = [
            contestant("nginx-static", &["nginx"], &["nginx"], ""),
            contestant(
                "nginx-module",
                &["nginx", "gcc"],
                &["nginx", "libpcre2-dev"],
                "",
            ),
        ];
        let refs: Vec<&Contestant> = cs.iter().collect();
        assert_eq!(plan(&refs, |_| false).debian, ["libpcre2-dev", "nginx"]);
    }

    #[test]
    fn one_lane_per_toolchain_and_those_needing_no_package_go_first() {
        let cs = [
            contestant("c-h2o", &["gcc"], &["libh2o-evloop-dev"], ""),
            contestant("java-netty", &["java", "mvn"], &[], ""),
            contestant("c-epoll", &["gcc"], &["gcc"], ""),
            contestant("java-mina", &["java", "mvn"], &[], ""),
            contestant("node-http", &["node"], &[], ""),
        ];
        let refs: Vec<&Contestant> = cs.iter().collect();
        let plan = plan(&refs, |p| p == "gcc");
        let lanes: Vec<Vec<&str>> = plan.lanes.iter().map(|l| names(l)).collect();
        assert_eq!(
            lanes,
            [
                vec!["c-epoll", "c-h2o"],
                vec!["java-netty", "java-mina"],
                vec!["node-http"]
            ]
        );
    }

    #[test]
    fn a_blocked_contestants_packages_are_not_installed() {
        let cs = [
            contestant(
                "erlang-yaws",
                &["erl"],
                &["yaws"],
                "yaws is not packaged here",
            ),
            contestant("nginx-static", &["nginx"], &["nginx"], ""),
        ];
        let refs: Vec<&Contestant> = cs.iter().collect();
        let plan = plan(&refs, |_| false);
        assert_eq!(plan.debian, ["nginx"]);
        assert_eq!(
            plan.lanes.len(),
            2,
            "it still has its task, which fails naming why"
        );
    }
}
