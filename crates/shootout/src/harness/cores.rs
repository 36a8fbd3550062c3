//! How busy each core of the machine is, from /proc/stat: the 2012 article's per-core
//! CPU screenshots, as numbers.

/// Cumulative busy and total ticks of every core, in core order.
#[derive(Debug, Clone, Default)]
pub struct CoreTicks(Vec<(u64, u64)>);

impl CoreTicks {
    /// Reads /proc/stat (empty if it cannot be read).
    pub fn take() -> CoreTicks {
        let text = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        CoreTicks(text.lines().filter_map(core_line).collect())
    }

    /// Each core's busy share (0..1) between `earlier` and this reading.
    pub fn busy_since(&self, earlier: &CoreTicks) -> Vec<f32> {
        self.0
            .iter()
            .zip(&earlier.0)
            .map(|(&(busy, total), &(busy0, total0))| {
                let spent = total.saturating_sub(total0);
                if spent == 0 {
                    0.0
                } else {
                    (busy.saturating_sub(busy0) as f64 / spent as f64) as f32
                }
            })
            .collect()
    }
}

/// (busy, total) ticks from a `cpuN ...` line; None for the aggregate `cpu` line and others.
fn core_line(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.split_whitespace();
    let name = fields.next()?;
    if !name.starts_with("cpu") || name == "cpu" {
        return None;
    }
    let ticks: Vec<u64> = fields.filter_map(|f| f.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal [guest guest_nice, already in user].
    let total: u64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3).copied().unwrap_or(0) + ticks.get(4).copied().unwrap_or(0);
    Some((total.saturating_sub(idle), total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_core_line_is_busy_and_total_without_the_aggregate() {
        assert_eq!(core_line("cpu  10 0 5 100 5 0 0 0 0 0"), None);
        assert_eq!(core_line("cpu1 10 1 5 100 4 2 3 0 0 0"), Some((21, 125)));
        let a = CoreTicks(vec![(0, 0), (10, 100)]);
        let b = CoreTicks(vec![(50, 100), (10, 200)]);
        assert_eq!(b.busy_since(&a), vec![0.5, 0.0]);
        assert!(!CoreTicks::take().0.is_empty());
    }
}
