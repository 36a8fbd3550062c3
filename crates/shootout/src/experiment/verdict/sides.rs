//! The sides of one run on the cores: the server's, the generator's and, when the run had
//! the database the harness owns, the database's (a layout places it beside one of the
//! others). What each side's processes did on them over the window is the CPU split.

use crate::experiment::layout::Layout;
use crate::model::{CpuSplit, Point};

/// Each side's cores.
pub(super) struct Sides<'a> {
    pub server: &'a [usize],
    pub generator: &'a [usize],
    /// None when the run had no database.
    pub database: Option<&'a [usize]>,
}

impl<'a> Sides<'a> {
    /// The sides of `layout` (`all`: every core, for a side it leaves unpinned); the run
    /// had a database when its series counted one's CPU.
    pub fn of(window: &[Point], layout: &'a Layout, all: &'a [usize]) -> Sides<'a> {
        let had_database = window.iter().any(|p| p.database_cpu_s > 0.0);
        Sides {
            server: layout.server.as_deref().unwrap_or(all),
            generator: layout.generator.as_deref().unwrap_or(all),
            database: had_database.then(|| layout.database.as_deref().unwrap_or(all)),
        }
    }

    /// Each side's CPU over `window`, when the run had a database.
    pub fn split(&self, window: &[Point]) -> Option<CpuSplit> {
        let database = self.database?;
        let (first, last) = (window.first()?, window.last()?);
        let busy = window.windows(2).map(|w| {
            let dt = w[1].t_ms.saturating_sub(w[0].t_ms) as f64 / 1000.0;
            w[1].cores.iter().map(|&b| b as f64 * dt).sum::<f64>()
        });
        Some(CpuSplit {
            wall_s: last.t_ms.saturating_sub(first.t_ms) as f64 / 1000.0,
            server_s: grown(window, |p| p.cpu_s),
            database_s: grown(window, |p| p.database_cpu_s),
            generator_s: grown(window, |p| p.generator_cpu_s),
            cores_busy_s: busy.sum(),
            database_cores: database.len(),
        })
    }

    /// Whether the server's saturated cores are its own doing: always, unless it shares
    /// them with a database that worked more there.
    pub fn server_outworks_database(&self, split: &Option<CpuSplit>) -> bool {
        self.outworks_database(self.server, split, |s| s.server_s)
    }

    /// The same for the generator's cores.
    pub fn generator_outworks_database(&self, split: &Option<CpuSplit>) -> bool {
        self.outworks_database(self.generator, split, |s| s.generator_s)
    }

    /// Whether the side on `cores`, whose CPU the split's `own` is, did at least the
    /// database's work, when they share a core.
    fn outworks_database(
        &self,
        cores: &[usize],
        split: &Option<CpuSplit>,
        own: fn(&CpuSplit) -> f64,
    ) -> bool {
        match (self.database, split) {
            (Some(d), Some(s)) if overlap(d, cores) => own(s) >= s.database_s,
            _ => true,
        }
    }

    /// Whether the database worked at least as much as every side it shares cores with.
    pub fn database_outworks_others(&self, split: &Option<CpuSplit>) -> bool {
        let (Some(d), Some(s)) = (self.database, split) else {
            return false;
        };
        let server = overlap(d, self.server).then_some(s.server_s);
        let generator = overlap(d, self.generator).then_some(s.generator_s);
        [server, generator]
            .into_iter()
            .flatten()
            .all(|other| s.database_s >= other)
    }
}

/// Whether two sets of cores share one.
fn overlap(a: &[usize], b: &[usize]) -> bool {
    a.iter().any(|c| b.contains(c))
}

/// What a cumulative count grew by over the window; only growth counts, as for the
/// server's CPU (a thread that ends takes its time out of the next sample's sum).
fn grown(window: &[Point], count: impl Fn(&Point) -> f64) -> f64 {
    let each = window
        .windows(2)
        .map(|w| (count(&w[1]) - count(&w[0])).max(0.0));
    each.sum()
}
