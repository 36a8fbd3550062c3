//! The contestants that ran unverified (`verify = "none"`): nothing checked that they
//! speak HTTP or answer as expected, so their numbers may count wrong answers as
//! responses. Every report says so, one line per contestant.

use crate::model::{RunRecord, VerifyLevel};

/// One warning line per contestant with a run at level `none`, in the order they ran.
pub fn lines(runs: &[RunRecord]) -> Vec<String> {
    let mut names: Vec<&str> = Vec::new();
    for r in runs.iter().filter(|r| r.verify == VerifyLevel::None) {
        if !names.contains(&r.coordinates.contestant.as_str()) {
            names.push(&r.coordinates.contestant);
        }
    }
    names
        .into_iter()
        .map(|name| {
            format!(
                "warning: {name} ran unverified (verify = \"none\"): nothing checked its answers, \
                 so its numbers may count wrong ones as responses"
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Label;
    use crate::report::fixture::hello_run;

    #[test]
    fn one_line_per_unverified_contestant() {
        let mut runs = vec![
            hello_run("a", Label::Ok, 100.0, 1.0),
            hello_run("b", Label::Ok, 100.0, 1.0),
            hello_run("b", Label::Ok, 110.0, 1.0),
        ];
        assert!(lines(&runs).is_empty());
        runs[1].verify = VerifyLevel::None;
        runs[2].verify = VerifyLevel::None;
        let warned = lines(&runs);
        assert_eq!(warned.len(), 1, "{warned:?}");
        assert!(
            warned[0].starts_with("warning: b ran unverified"),
            "{warned:?}"
        );
    }
}
