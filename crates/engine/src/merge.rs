//! Merging the results of shards of one load, exactly: counts add, histograms add
//! (so merged percentiles are those of the union of samples), series add second by second.

use crate::histcodec::HistogramError;
use crate::outcome::Counts;
use crate::result::{
    Bytes, ConfigEcho, Connections, Generator, H2Summary, Histograms, LoadResult, Percentiles,
    RateSummary, SecondSummary, ShardFigures, Spread, TlsSummary, WsSummary,
};
use crate::stats::Second;
use hdrhistogram::Histogram;

/// Why results could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error("nothing to merge")]
    Empty,
    /// A second of the per-second series whose histogram does not decode.
    #[error("result {index}: per_second: {source}")]
    Histogram {
        index: usize,
        source: HistogramError,
    },
}

/// Merges shard results into one result.
pub fn merge(parts: &[LoadResult]) -> Result<LoadResult, MergeError> {
    let first = parts.first().ok_or(MergeError::Empty)?;
    let histograms = merged_histograms(parts);
    let h = &histograms;
    let duration_s = parts.iter().map(|p| p.duration_s).fold(0.0, f64::max);
    let requests = parts.iter().fold(Counts::default(), |mut c, p| {
        c.merge(&p.requests);
        c
    });
    let bytes = Bytes {
        read: parts.iter().map(|p| p.bytes.read).sum(),
        written: parts.iter().map(|p| p.bytes.written).sum(),
    };
    Ok(LoadResult {
        url: first.url.clone(),
        started_unix_ms: parts.iter().map(|p| p.started_unix_ms).min().unwrap_or(0),
        config: merged_config(parts, &requests),
        duration_s,
        rps: (requests.ok + requests.status) as f64 / duration_s.max(f64::MIN_POSITIVE),
        requests,
        transfer_per_s: bytes.read as f64 / duration_s.max(f64::MIN_POSITIVE),
        bytes,
        latency_us: Percentiles::of(&h.latency),
        latency_raw_us: Percentiles::of(&h.latency_raw),
        rate: merge_rate(parts, duration_s),
        connect_us: Percentiles::of(&h.connect),
        tls: merge_tls(parts, &h.handshake),
        h2: merge_h2(parts),
        ws: merge_ws(parts, &h.upgrade),
        thread_rps: pool(parts.iter().map(|p| &p.thread_rps)),
        status_codes: merged_status_codes(parts),
        connections: Connections {
            opened: parts.iter().map(|p| p.connections.opened).sum(),
            closed_by_server: parts.iter().map(|p| p.connections.closed_by_server).sum(),
        },
        per_second: merge_seconds(parts)?,
        generator: merge_generator(parts, duration_s),
        interrupted: parts.iter().any(|p| p.interrupted),
        warnings: merged_warnings(parts),
        shards: shard_figures(parts),
        histograms,
    })
}

/// Each part's own figures; a part that was itself merged brings its shards' figures.
fn shard_figures(parts: &[LoadResult]) -> Vec<ShardFigures> {
    parts
        .iter()
        .flat_map(|p| match p.shards.is_empty() {
            true => vec![ShardFigures::of(p)],
            false => p.shards.clone(),
        })
        .collect()
}

/// The parts' TLS summaries merged (None when no part was a TLS load).
fn merge_h2(parts: &[LoadResult]) -> Option<H2Summary> {
    let h2: Vec<&H2Summary> = parts.iter().filter_map(|p| p.h2.as_ref()).collect();
    (!h2.is_empty()).then(|| H2Summary::merged(h2))
}

/// The parts' WebSocket summaries merged (None when no part was a WebSocket load).
fn merge_ws(parts: &[LoadResult], upgrade: &Histogram<u64>) -> Option<WsSummary> {
    let ws: Vec<&WsSummary> = parts.iter().filter_map(|p| p.ws.as_ref()).collect();
    (!ws.is_empty()).then(|| WsSummary::merged(ws, upgrade))
}

fn merge_tls(parts: &[LoadResult], handshake: &Histogram<u64>) -> Option<TlsSummary> {
    let tls: Vec<&TlsSummary> = parts.iter().filter_map(|p| p.tls.as_ref()).collect();
    (!tls.is_empty()).then(|| TlsSummary::merged(tls, handshake))
}

/// The parts' latency, raw latency, connect and handshake histograms, each added up exactly.
fn merged_histograms(parts: &[LoadResult]) -> Histograms {
    let mut sum = Histograms::default();
    for p in parts {
        add(&mut sum.latency, &p.histograms.latency);
        add(&mut sum.latency_raw, &p.histograms.latency_raw);
        add(&mut sum.connect, &p.histograms.connect);
        add(&mut sum.handshake, &p.histograms.handshake);
        add(&mut sum.upgrade, &p.histograms.upgrade);
    }
    sum
}

/// The first part's configuration, with the connections and threads of all of them.
fn merged_config(parts: &[LoadResult], requests: &Counts) -> ConfigEcho {
    let mut config = parts[0].config.clone();
    config.connections = parts.iter().map(|p| p.config.connections).sum();
    config.threads = parts.iter().map(|p| p.config.threads).sum();
    config.requests = parts[0].config.requests.map(|_| requests.total());
    config.shard = format!("merged {}", parts.len());
    config.start_at = None;
    let seed = parts[0].config.vary_seed;
    config.vary_seed = seed.filter(|_| parts.iter().all(|p| p.config.vary_seed == seed));
    config
}

fn merged_status_codes(parts: &[LoadResult]) -> std::collections::BTreeMap<String, u64> {
    let mut codes = std::collections::BTreeMap::new();
    for (code, n) in parts.iter().flat_map(|p| &p.status_codes) {
        *codes.entry(code.clone()).or_default() += n;
    }
    codes
}

/// Every part's warnings, each saying which part (from 1) it came from.
fn merged_warnings(parts: &[LoadResult]) -> Vec<String> {
    let numbered = parts.iter().enumerate();
    numbered
        .flat_map(|(i, p)| {
            p.warnings
                .iter()
                .map(move |w| format!("part {}: {w}", i + 1))
        })
        .collect()
}

fn add<T: hdrhistogram::Counter>(sum: &mut Histogram<T>, h: &Histogram<T>) {
    // Both come from the same bounds, so adding cannot fail; a foreign histogram with
    // wider values saturates rather than being dropped.
    if sum.add(h).is_err() {
        for v in h.iter_recorded() {
            sum.saturating_record_n(v.value_iterated_to(), v.count_at_value());
        }
    }
}

/// Adds the per-second series second by second, histograms included.
fn merge_seconds(parts: &[LoadResult]) -> Result<Vec<SecondSummary>, MergeError> {
    let len = parts.iter().map(|p| p.per_second.len()).max().unwrap_or(0);
    let mut seconds: Vec<Second> = (0..len).map(|_| Second::new()).collect();
    for (index, p) in parts.iter().enumerate() {
        for (sum, x) in seconds.iter_mut().zip(&p.per_second) {
            let part = x
                .to_second()
                .map_err(|source| MergeError::Histogram { index, source })?;
            sum.merge(&part);
        }
    }
    Ok(seconds
        .iter()
        .enumerate()
        .map(|(i, s)| SecondSummary::of(i, s))
        .collect())
}

/// Pools per-part spreads exactly from their sample counts, means and deviations.
fn pool<'a>(spreads: impl Iterator<Item = &'a Spread>) -> Spread {
    let spreads: Vec<&Spread> = spreads.collect();
    let n: u64 = spreads.iter().map(|s| s.samples).sum();
    if n == 0 {
        return Spread::default();
    }
    let w = |s: &Spread| s.samples as f64 / n as f64;
    let mean: f64 = spreads.iter().map(|s| w(s) * s.mean).sum();
    let square: f64 = spreads
        .iter()
        .map(|s| w(s) * (s.stdev.powi(2) + s.mean.powi(2)))
        .sum();
    Spread {
        mean,
        stdev: (square - mean * mean).max(0.0).sqrt(),
        max: spreads.iter().map(|s| s.max).fold(0.0, f64::max),
        samples: n,
    }
}

fn merge_rate(parts: &[LoadResult], duration_s: f64) -> Option<RateSummary> {
    let rates: Vec<&RateSummary> = parts.iter().filter_map(|p| p.rate.as_ref()).collect();
    if rates.is_empty() {
        return None;
    }
    let scheduled: u64 = rates.iter().map(|r| r.scheduled).sum();
    let started: u64 = rates.iter().map(|r| r.started).sum();
    Some(RateSummary {
        target_rps: scheduled as f64 / duration_s.max(f64::MIN_POSITIVE),
        achieved_rps: started as f64 / duration_s.max(f64::MIN_POSITIVE),
        scheduled,
        started,
        still_due: rates.iter().map(|r| r.still_due).sum(),
        late: rates.iter().map(|r| r.late).sum(),
        waited: rates.iter().map(|r| r.waited).sum(),
    })
}

fn merge_generator(parts: &[LoadResult], duration_s: f64) -> Generator {
    let sum = |f: fn(&Generator) -> f64| parts.iter().map(|p| f(&p.generator)).sum::<f64>();
    let cpu_seconds = sum(|g| g.cpu_seconds);
    let io = &parts[0].generator.io;
    Generator {
        cpu_seconds,
        user_seconds: sum(|g| g.user_seconds),
        sys_seconds: sum(|g| g.sys_seconds),
        cpu_percent: 100.0 * cpu_seconds / duration_s.max(f64::MIN_POSITIVE),
        bound: parts.iter().any(|p| p.generator.bound),
        io: if parts.iter().all(|p| &p.generator.io == io) {
            io.clone()
        } else {
            "mixed".into()
        },
        threads: parts.iter().map(|p| p.generator.threads).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_spread_is_that_of_the_union() {
        let a = Spread::of(&[1.0, 2.0, 3.0]);
        let b = Spread::of(&[10.0, 20.0]);
        let all = Spread::of(&[1.0, 2.0, 3.0, 10.0, 20.0]);
        let p = pool([&a, &b].into_iter());
        assert!((p.mean - all.mean).abs() < 1e-9);
        assert!((p.stdev - all.stdev).abs() < 1e-9);
        assert_eq!((p.max, p.samples), (20.0, 5));
    }

    /// A shard's TLS summary with `handshakes` of `ns` each, `resumed` of them resumed.
    fn tls_part(handshakes: u64, resumed: u64, ns: u64, alpn: &str) -> LoadResult {
        let mut p = crate::result::wire_tests::written_before_tls();
        p.histograms.handshake.record_n(ns, handshakes).unwrap();
        p.tls = Some(TlsSummary {
            negotiated: Some(crate::tls::Negotiated {
                version: "TLS 1.3".into(),
                suite: "TLS13_AES_128_GCM_SHA256".into(),
                group: Some("X25519".into()),
                alpn: Some(alpn.into()),
            }),
            full: handshakes - resumed,
            resumed,
            handshake_us: Percentiles::of(&p.histograms.handshake),
            failures: [("truncated".to_string(), 1)].into(),
        });
        p
    }

    #[test]
    fn tls_summaries_merge_exactly() {
        let parts = [
            tls_part(10, 4, 100_000, "http/1.1"),
            tls_part(30, 0, 300_000, "h2"),
        ];
        let m = merge(&parts).unwrap();
        let tls = m.tls.unwrap();
        assert_eq!((tls.full, tls.resumed), (36, 4));
        assert_eq!(tls.failures["truncated"], 2);
        assert_eq!(m.histograms.handshake.len(), 40);
        assert!((tls.handshake_us.p50 - 300.0).abs() < 1.0, "{tls:?}");
        let n = tls.negotiated.unwrap();
        assert_eq!(
            (n.version.as_str(), n.alpn.as_deref()),
            ("TLS 1.3", Some("mixed"))
        );
        let clear = crate::result::wire_tests::written_before_tls();
        assert!(merge(&[clear]).unwrap().tls.is_none());
    }

    /// A shard's open loop that dropped `dropped` of its `scheduled`, `still_due` of them
    /// waiting at the stop, the dropped in its first second.
    fn dropping_part(scheduled: u64, dropped: u64, still_due: u64) -> LoadResult {
        let mut p = crate::result::wire_tests::written_before_tls();
        let sent = scheduled - dropped - still_due;
        p.requests = Counts {
            ok: sent,
            dropped,
            ..Counts::default()
        };
        let rate = p.rate.as_mut().expect("an open loop");
        (rate.scheduled, rate.started, rate.still_due) = (scheduled, sent, still_due);
        let mut second = Second::new();
        (second.errors, second.dropped) = (dropped, dropped);
        p.per_second = vec![SecondSummary::of(0, &second)];
        p
    }

    #[test]
    fn dropped_requests_merge_exactly_and_keep_the_accounting() {
        let m = merge(&[dropping_part(100, 30, 5), dropping_part(80, 0, 2)]).unwrap();
        let (q, rate) = (&m.requests, m.rate.as_ref().unwrap());
        assert_eq!((q.dropped, q.total(), q.errors()), (30, 173, 30));
        assert_eq!(
            (rate.scheduled, rate.started, rate.still_due),
            (180, 143, 7)
        );
        assert_eq!(rate.started + q.dropped + rate.still_due, rate.scheduled);
        assert_eq!((m.per_second[0].dropped, m.per_second[0].errors), (30, 30));
        let shards: Vec<u64> = m.shards.iter().map(|s| s.requests.dropped).collect();
        assert_eq!(shards, [30, 0]);
    }

    #[test]
    fn h2_summaries_merge_by_code() {
        use crate::result::wire_tests::{h2_part, written_before_tls};
        let mut a = written_before_tls();
        a.h2 = Some(h2_part(2, "REFUSED_STREAM"));
        let mut b = written_before_tls();
        b.h2 = Some(h2_part(5, "CANCEL"));
        let h2 = merge(&[a, b]).unwrap().h2.unwrap();
        assert_eq!((h2.retried, h2.pings), (7, 6));
        assert_eq!(h2.resets["REFUSED_STREAM"] + h2.resets["CANCEL"], 2);
        assert_eq!(
            (h2.goaways["NO_ERROR"], h2.errors["PROTOCOL_ERROR"]),
            (2, 2)
        );
        assert!(h2.settings.is_some() && h2.first_error.is_some());
        assert!(merge(&[written_before_tls()]).unwrap().h2.is_none());
    }
}
