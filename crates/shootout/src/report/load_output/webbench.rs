//! webbench's two result lines (it reports pages per minute, not per second).

use engine::LoadResult;

/// Prints `Speed=… pages/min, … bytes/sec.` and `Requests: … susceed, … failed.`
pub fn print(r: &LoadResult) {
    let q = &r.requests;
    let done = q.ok + q.status;
    let failed = q.errors();
    let minutes = r.duration_s / 60.0;
    // webbench counts every finished request, failed or not, in its speed.
    let pages_per_min = (done + failed) as f64 / minutes.max(f64::MIN_POSITIVE);
    println!(
        "Speed={:.0} pages/min, {:.0} bytes/sec.",
        pages_per_min, r.transfer_per_s
    );
    // "susceed" is webbench's own spelling; scripts that parse its output expect it.
    println!("Requests: {done} susceed, {failed} failed.");
}
