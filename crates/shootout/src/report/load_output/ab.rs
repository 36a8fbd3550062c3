//! ApacheBench's key lines, so ab-based articles can be compared line by line.

use engine::LoadResult;

/// Prints the lines of `ab`'s report that articles quote.
pub fn print(r: &LoadResult) {
    let q = &r.requests;
    let done = q.ok + q.status;
    // Like ab, requests still in flight when the time ran out are not failures.
    let failed = q.errors();
    println!("Concurrency Level:      {}", r.config.connections);
    println!("Time taken for tests:   {:.3} seconds", r.duration_s);
    println!("Complete requests:      {done}");
    // ab has no TLS class, nor an open loop to drop requests from; a clear-text closed
    // load's line stays as ab prints it.
    let tls: String = [("TLS", q.tls), ("Dropped", q.dropped)]
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(class, n)| format!(", {class}: {n}"))
        .collect();
    println!(
        "Failed requests:        {failed}\n   (Connect: {}, Receive: {}, Length: {}, Exceptions: {}, Timeout: {}{tls})",
        q.connect,
        q.read,
        q.parse,
        q.write,
        q.timeout
    );
    if q.status > 0 {
        println!("Non-2xx responses:      {}", q.status);
    }
    if r.config.keepalive {
        println!("Keep-Alive requests:    {done}");
    }
    println!("Total transferred:      {} bytes", r.bytes.read);
    println!("Requests per second:    {:.2} [#/sec] (mean)", r.rps);
    let per_request_ms = r.config.connections as f64 * 1000.0 / r.rps.max(f64::MIN_POSITIVE);
    println!("Time per request:       {per_request_ms:.3} [ms] (mean)");
    println!(
        "Time per request:       {:.3} [ms] (mean, across all concurrent requests)",
        1000.0 / r.rps.max(f64::MIN_POSITIVE)
    );
    println!(
        "Transfer rate:          {:.2} [Kbytes/sec] received",
        r.transfer_per_s / 1024.0
    );
    println!();
    print_percentiles(r);
}

/// ab's table of latency percentiles, whole milliseconds.
fn print_percentiles(r: &LoadResult) {
    println!("Percentage of the requests served within a certain time (ms)");
    for (p, q) in [
        (50, 0.5),
        (66, 0.66),
        (75, 0.75),
        (80, 0.8),
        (90, 0.9),
        (95, 0.95),
        (98, 0.98),
        (99, 0.99),
    ] {
        println!(
            "  {p:>3}% {:>6}",
            ms(r.histograms.latency.value_at_quantile(q))
        );
    }
    println!(
        "  100% {:>6} (longest request)",
        ms(r.histograms.latency.max())
    );
}

/// Whole milliseconds, rounded as ab rounds them.
fn ms(ns: u64) -> u64 {
    (ns + 500_000) / 1_000_000
}
