//! One contestant's runs in one cell, summarised over repeats: medians, their intervals,
//! what is marked and why the others were not valid.

use super::marks::{LOWER_BOUND_MARK, MARKED, MARKED_MEANING};
use crate::model::{Bottleneck, Label, RunRecord};
use crate::stats::measures::{self, Measure};
use crate::stats::{self, median};
use crate::units;
use engine::LoadResult;

/// One contestant's runs in one cell.
#[derive(Debug, Clone)]
pub struct Row<'a> {
    pub contestant: &'a str,
    pub runs: Vec<&'a RunRecord>,
    /// 1 = best; shared when the medians' intervals overlap; None when no run was `ok`.
    pub rank: Option<usize>,
}

impl<'a> Row<'a> {
    fn labelled(&self, label: Label) -> impl Iterator<Item = &'a RunRecord> + '_ {
        self.runs
            .iter()
            .copied()
            .filter(move |r| r.label() == label)
    }

    /// True when the generator was saturated too in every ok run that was judged: the
    /// rows's requests/s is a lower bound of the server's capacity.
    pub fn lower_bound(&self) -> bool {
        let mut judged = self
            .labelled(Label::Ok)
            .filter_map(RunRecord::verdict)
            .peekable();
        judged.peek().is_some() && judged.all(|v| v.bottleneck == Bottleneck::Both)
    }

    /// The ok runs: the valid ones, that measured the server (what every median is over).
    pub fn ok_runs(&self) -> impl Iterator<Item = &'a RunRecord> + '_ {
        self.labelled(Label::Ok)
    }

    /// `m` of every ok run (the runs that measured the server).
    pub fn values(&self, m: Measure) -> Vec<f64> {
        self.labelled(Label::Ok).filter_map(m).collect()
    }

    /// `m` of every generator-bound run.
    pub fn bound_values(&self, m: Measure) -> Vec<f64> {
        self.labelled(Label::GeneratorBound).filter_map(m).collect()
    }

    /// `m` of every run that measured something: ok and generator-bound. For the ceiling
    /// a generator-bound run still bounds what it can do from below.
    pub fn measured_values(&self, m: Measure) -> Vec<f64> {
        [self.values(m), self.bound_values(m)].concat()
    }

    /// The runs a row without valid runs shows, marked `†`: measured, but disturbed
    /// (foreign CPU or steal past its limit). Generator-bound runs have their own mark.
    pub fn marked_runs(&self) -> impl Iterator<Item = &'a RunRecord> + '_ {
        self.labelled(Label::Disturbed)
            .filter(|r| r.result().is_some())
    }

    /// `m` of every marked run.
    pub fn marked_values(&self, m: Measure) -> Vec<f64> {
        self.marked_runs().filter_map(m).collect()
    }

    /// True when the row's figure rests on marked runs: no ok run, no generator-bound
    /// one, but disturbed ones that measured.
    pub fn is_marked(&self) -> bool {
        !self.is_measured()
            && self.bound_values(measures::rps).is_empty()
            && !self.marked_values(measures::rps).is_empty()
    }

    /// The requests/s the row is ranked by: its ok runs', or its marked runs' when it
    /// rests on them; empty for a row that is not ranked.
    pub(super) fn ranked_rps(&self) -> Vec<f64> {
        match self.is_marked() {
            true => self.marked_values(measures::rps),
            false => self.rps(),
        }
    }

    /// The rank as tables show it: `2`, `2†` for a row that rests on marked runs, `-`
    /// for one that is not ranked.
    pub fn rank_text(&self) -> String {
        let mark = if self.is_marked() { MARKED } else { "" };
        self.rank.map_or("-".into(), |k| format!("{k}{mark}"))
    }

    /// Requests/s of the ok runs.
    pub fn rps(&self) -> Vec<f64> {
        self.values(measures::rps)
    }

    /// True when some run measured the server (the row is ranked).
    pub fn is_measured(&self) -> bool {
        !self.rps().is_empty()
    }

    /// The ok run whose requests/s is the median (the lower one of an even count); for a
    /// row that rests on marked runs, the median of those.
    pub fn median_run(&self) -> Option<(&'a RunRecord, &'a LoadResult)> {
        let runs: Vec<&RunRecord> = match self.is_marked() {
            true => self.marked_runs().collect(),
            false => self.labelled(Label::Ok).collect(),
        };
        let mut ok: Vec<(&RunRecord, &LoadResult)> = runs
            .into_iter()
            .filter_map(|r| Some((r, r.result()?)))
            .collect();
        ok.sort_by(|a, b| a.1.rps.total_cmp(&b.1.rps));
        let n = ok.len();
        (n > 0).then(|| ok[(n - 1) / 2])
    }

    /// Median requests/s with its spread, `25,809 ±1.2%` (the half-width of the median's
    /// 95% interval over the median), `25,809 ±3.4% (88%)` for fewer than 6 runs (their
    /// range, and how likely it holds the median), none for a single run; `-` without
    /// ok runs.
    pub fn rps_text(&self) -> String {
        let rps = self.rps();
        if rps.is_empty() {
            return "-".into();
        }
        stats::with_spread(units::grouped(median(&rps)), &rps)
    }

    /// The ok runs' requests/s with spread, or else the generator-bound runs' median
    /// marked `*` (the generator was saturated: not ranked), or else `-`.
    /// A lower bound (both sides saturated in its ok runs) reads `≥`: it ranks above a
    /// measured value only where its median exceeds it.
    pub fn rps_or_bound_text(&self) -> String {
        if self.is_measured() {
            let at_least = if self.lower_bound() { "≥ " } else { "" };
            return format!("{at_least}{}", self.rps_text());
        }
        let bound = self.bound_values(measures::rps);
        if !bound.is_empty() {
            return format!("{}*", units::grouped(median(&bound)));
        }
        let marked = self.marked_values(measures::rps);
        match marked.is_empty() {
            true => "-".into(),
            false => format!("{} {MARKED}", units::grouped(median(&marked))),
        }
    }

    /// Server CPU-seconds per 1,000 responses, median over ok runs.
    pub fn cpu_per_1k(&self) -> f64 {
        median(&self.values(measures::cpu_ms_per_response))
    }

    /// The ok runs' CPU per 1,000 responses, or else the generator-bound runs' median
    /// marked `*` (the server's CPU per request is its own whatever saturated the
    /// generator), or else blank; `unknown` when the runs' server CPU was not its own (a
    /// running server without its process).
    pub fn cpu_or_bound_text(&self) -> String {
        let cpu = measures::cpu_ms_per_response;
        if self.is_measured() && !self.values(cpu).is_empty() {
            return format!("{:.4}", self.cpu_per_1k());
        }
        let bound = self.bound_values(cpu);
        if !bound.is_empty() && !self.is_measured() {
            return format!("{:.4}*", median(&bound));
        }
        let marked = self.marked_values(cpu);
        if self.is_marked() && !marked.is_empty() {
            return format!("{:.4} {MARKED}", median(&marked));
        }
        match self.unattributed().is_some() {
            true => "unknown".into(),
            false => String::new(),
        }
    }

    /// Peak resident memory over the ok runs, MiB.
    pub fn rss_mib(&self) -> f64 {
        self.labelled(Label::Ok)
            .filter(|r| r.result().is_some())
            .map(measures::peak_rss_mib)
            .fold(0.0, f64::max)
    }

    /// [`Row::rss_mib`] as the tables show it: `unknown` when no ok run's memory was the
    /// server's own.
    pub fn rss_text(&self) -> String {
        let mut ok = self.labelled(Label::Ok).filter(|r| r.result().is_some());
        match ok.any(measures::server_known) {
            true => format!("{:.1}", self.rss_mib()),
            false => "unknown".into(),
        }
    }

    /// Why the server's CPU of some measured run was not its own, if one was not.
    pub fn unattributed(&self) -> Option<&'a str> {
        self.runs
            .iter()
            .filter_map(|r| r.verdict()?.unattributed.as_deref())
            .next()
    }

    /// The runs that are not ok, counted by label, with the first reason of each.
    pub fn notes(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        for label in not_ok() {
            let these: Vec<&RunRecord> = self.labelled(label).collect();
            if let Some(first) = these.first() {
                let why: String = first.reason().chars().take(70).collect();
                out.push(match label {
                    Label::GeneratorBound => {
                        format!("{} {} (not ranked)", these.len(), label.word())
                    }
                    Label::Disturbed => disturbed_note(&these),
                    _ => format!("{} {}: {why}", these.len(), label.word()),
                });
            }
        }
        if let Some(why) = self.unattributed() {
            out.push(format!("server CPU unknown: {why}"));
        }
        out.join("; ")
    }

    /// The worst label among the runs, for a cell with no ok run.
    pub fn failure(&self) -> Option<Label> {
        not_ok().find(|l| self.labelled(*l).next().is_some())
    }
}

/// `3 disturbed: steal 18%, foreign CPU 1% (medians)`: how much was taken from the runs,
/// as their verdicts measured it.
pub fn disturbed_note(runs: &[&RunRecord]) -> String {
    let share = |f: fn(&crate::model::Verdict) -> f64| {
        let v: Vec<f64> = runs.iter().filter_map(|r| r.verdict()).map(f).collect();
        format!("{:.0}%", 100.0 * median(&v))
    };
    let median_of = if runs.len() == 1 { "" } else { " (medians)" };
    format!(
        "{} disturbed: steal {}, foreign CPU {}{median_of}",
        runs.len(),
        share(|v| v.steal),
        share(|v| v.foreign)
    )
}

/// Labels other than ok, in the order notes list them.
fn not_ok() -> impl Iterator<Item = Label> {
    Label::ALL.into_iter().filter(|l| *l != Label::Ok)
}

/// The meanings of `≥` and `†` that some of `rows` carry, in that order.
pub fn carried_marks<'r, 'a: 'r>(rows: impl Iterator<Item = &'r Row<'a>> + Clone) -> Vec<String> {
    let lower = rows
        .clone()
        .any(|r| r.lower_bound())
        .then_some(LOWER_BOUND_MARK);
    let marked = rows
        .clone()
        .any(|r| r.is_marked())
        .then_some(MARKED_MEANING);
    lower.into_iter().chain(marked).map(String::from).collect()
}
