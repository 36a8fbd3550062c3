//! What the host was doing at idle before an experiment's first run.

/// Shares (0..1) of all cores' time over a watch with no contestant running.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HostNoise {
    pub cores: usize,
    /// How long the host was watched.
    pub seconds: f64,
    /// Taken by the hypervisor for other guests, over the whole watch.
    pub steal: f64,
    /// The most stolen in one look (a quarter second): steal comes in bursts.
    pub peak_steal: f64,
    /// Task and interrupt work of other processes (nothing of the experiment runs).
    pub busy: f64,
}

impl HostNoise {
    /// `host: 2 cores, steal 7% at idle (up to 21% in a quarter second), other work 1%`.
    pub fn line(&self) -> String {
        let pct = |share: f64| format!("{:.0}%", share * 100.0);
        let peak = match self.peak_steal > self.steal + 0.02 {
            true => format!(" (up to {} in a quarter second)", pct(self.peak_steal)),
            false => String::new(),
        };
        format!(
            "host: {} cores, steal {} at idle{peak}, other work {} (watched {:.0} s before the first run)",
            self.cores,
            pct(self.steal),
            pct(self.busy),
            self.seconds
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_says_steal_and_its_bursts() {
        let mut n = HostNoise {
            cores: 2,
            seconds: 3.0,
            steal: 0.07,
            peak_steal: 0.21,
            busy: 0.012,
        };
        assert_eq!(
            n.line(),
            "host: 2 cores, steal 7% at idle (up to 21% in a quarter second), other work 1% \
             (watched 3 s before the first run)"
        );
        n.peak_steal = 0.08;
        assert!(n
            .line()
            .starts_with("host: 2 cores, steal 7% at idle, other"));
    }
}
