//! CPU time of a process group (a server and every process it forked), from /proc.

/// Total user+sys CPU seconds of every live process in process group `pgid`.
pub fn seconds(pgid: u32) -> f64 {
    let ticks = clock_ticks();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0.0;
    };
    dir.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter_map(|pid| stat(pid).filter(|s| s.0 == pgid).map(|s| s.1))
        .sum::<u64>() as f64
        / ticks
}

/// (process group, utime + stime in ticks) of `pid`.
fn stat(pid: u32) -> Option<(u32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which may itself contain spaces and parentheses.
    let rest = text.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let pgrp = f.get(2)?.parse().ok()?;
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some((pgrp, utime + stime))
}

fn clock_ticks() -> f64 {
    // SAFETY: sysconf only reads a configuration value.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_this_process_group() {
        // SAFETY: getpgrp has no preconditions.
        let pgid = unsafe { libc::getpgrp() } as u32;
        let until = std::time::Instant::now() + std::time::Duration::from_millis(50);
        while std::time::Instant::now() < until {
            std::hint::black_box(0u64);
        }
        assert!(seconds(pgid) > 0.0);
    }
}
