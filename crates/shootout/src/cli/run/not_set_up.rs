//! Before anything starts: the experiment's catalog contestants that are not set up. Their
//! runs could only be skipped (a fresh checkout has nothing built, and a run of `quick`
//! would print a skipped row per run and fail), so `shootout run` stops first, names each
//! with what it lacks, and gives the commands that set them up; `--setup` sets them up
//! instead. Blocked contestants (not installable here) are not in it: their rows say why.

use shootout::contestant::catalog::{self, Catalog, Status};
use shootout::contestant::manifest::Origin;
use shootout::experiment::Experiment;
use std::fmt;

/// Catalog contestants an experiment names that need setup, and how the run was asked
/// for (to give the command again with `--setup`).
#[derive(Debug, thiserror::Error)]
pub(super) struct NotSetUp {
    /// `shootout run` with the experiment and profile as given.
    run: Vec<String>,
    /// Each contestant's name and what it lacks, in the experiment's order.
    lacking: Vec<(String, String)>,
}

/// The contestants of `exp` from the checkout's catalog that need setup, as an error
/// naming them (`run` is the command line's experiment and profile), or None when every
/// one is ready or blocked. Contestants from elsewhere (folders, inline) are left out:
/// `shootout run` sets those up itself.
pub(super) fn check(exp: &Experiment, cat: &Catalog, run: &[&str]) -> Option<NotSetUp> {
    let lacking: Vec<(String, String)> = (exp.contestants.iter())
        .filter_map(|name| cat.get(name).ok())
        .filter(|c| c.origin == Origin::Checkout)
        .filter_map(|c| match catalog::status(c) {
            Status::NeedsSetup(what) => Some((c.name().to_string(), what)),
            Status::Ready | Status::Blocked(_) => None,
        })
        .collect();
    (!lacking.is_empty()).then(|| NotSetUp {
        run: run.iter().map(|s| s.to_string()).collect(),
        lacking,
    })
}

impl fmt::Display for NotSetUp {
    /// `N contestants are not set up (nothing ran):`, a line per contestant, and the two
    /// commands that fix it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.lacking.len();
        let (s, are) = if n == 1 { ("", "is") } else { ("s", "are") };
        writeln!(f, "{n} contestant{s} {are} not set up (nothing ran):")?;
        for (name, what) in &self.lacking {
            writeln!(f, "  {name}: needs setup: {what}")?;
        }
        let mut with_setup = vec!["shootout", "run"];
        with_setup.extend(self.run.iter().map(String::as_str));
        with_setup.push("--setup");
        let mut setup = vec!["shootout", "setup"];
        setup.extend(self.lacking.iter().map(|(name, _)| name.as_str()));
        writeln!(f, "set them up and run: {}", shell_words::join(with_setup))?;
        write!(f, "or set them up first: {}", shell_words::join(setup))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_contestant_is_a_line_and_the_commands_are_ready_to_paste() {
        let e = NotSetUp {
            run: vec!["my exp.toml".into(), "--profile".into(), "full".into()],
            lacking: vec![
                ("go-nethttp".into(), "not built yet".into()),
                ("nginx-static".into(), "missing command nginx".into()),
            ],
        };
        assert_eq!(
            e.to_string(),
            "2 contestants are not set up (nothing ran):\n\
             \x20 go-nethttp: needs setup: not built yet\n\
             \x20 nginx-static: needs setup: missing command nginx\n\
             set them up and run: shootout run 'my exp.toml' --profile full --setup\n\
             or set them up first: shootout setup go-nethttp nginx-static"
        );
    }
}
