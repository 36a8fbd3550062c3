//! What `shootout run` says as it goes, one line each: the host's noise, a busy
//! machine, a contestant's verification.

use shootout::contestant::verify::Check;
use shootout::experiment::Experiment;
use shootout::machine::idle::Quiet;
use shootout::model::{HostNoise, VerifyLevel};

/// What the host's noise at idle means for this experiment's verdicts, said before the
/// first run: nothing on a quiet host.
pub(super) fn noise_warnings(noise: &HostNoise, exp: &Experiment) -> Vec<String> {
    let limits = exp.verdict_policy.strictest();
    let wait = exp.verdict_policy.wait;
    let mut out = Vec::new();
    if noise.steal > limits.steal {
        out.push(format!(
            "warning: the hypervisor steals {:.0}% of the cores at idle, above the {:.0}% that \
             disturbs a run: expect many runs to be made up ({}) or marked. For figures that \
             hold: a quieter host or hour, longer runs (duration), more repeats, or the \
             generator on another machine (--generators ssh:...)",
            noise.steal * 100.0,
            limits.steal * 100.0,
            exp.make_up.describe(exp.run_count()),
        ));
    }
    if noise.busy > limits.foreign {
        out.push(format!(
            "warning: other work keeps {:.0}% of the cores busy before the first run (over the \
             {:.0}% that disturbs a run): rounds wait up to {:.0} s for a quiet machine; stop it \
             if you can",
            noise.busy * 100.0,
            limits.foreign * 100.0,
            wait.as_secs_f64()
        ));
    }
    out
}

/// What the check for a quiet machine before a round found, in one line.
pub(super) fn busy_line(round: usize, quiet: &Quiet) -> String {
    let before = format!("before round {}", round + 1);
    match quiet {
        Quiet::Now => format!("{before}: the machine is quiet"),
        Quiet::After(d) => format!(
            "{before}: waited {:.1} s for a quiet machine",
            d.as_secs_f64()
        ),
        Quiet::Busy(share) => format!(
            "{before}: the machine stayed busy ({:.0}% of the cores, other work); running anyway, \
             and the runs it disturbs are labelled disturbed",
            share * 100.0
        ),
    }
}

/// How a contestant was verified, in one line: the level and the checks it passed, or
/// the ones it failed.
pub(super) fn verified_line(name: &str, level: VerifyLevel, checks: &[Check]) -> String {
    if level == VerifyLevel::None {
        return format!("{name}: not verified (verify = \"none\"): its results carry a warning");
    }
    let failed: Vec<String> = (checks.iter().filter(|k| !k.passed))
        .map(|k| format!("{}: {}", k.name, k.detail))
        .collect();
    if !failed.is_empty() {
        return format!(
            "{name}: failed verification at level {}: {}",
            level.word(),
            failed.join("; ")
        );
    }
    let passed: Vec<String> = (checks.iter())
        .map(|k| match k.flagged {
            true => format!("{} (flagged: {})", k.name, k.detail),
            false => k.name.clone(),
        })
        .collect();
    format!(
        "{name}: verified at level {} ({}): {}",
        level.word(),
        level.meaning(),
        passed.join(", ")
    )
}
