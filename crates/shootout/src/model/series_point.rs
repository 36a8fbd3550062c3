//! One sample of the series the harness takes while a load runs (every 100 ms): the
//! server's CPU and memory, the database's CPU, each core's use and steal, and the CPU of everyone else. The
//! record stores the series; the harness's monitor takes it.

/// One point of the series (fields after `cpu_s` are absent from schema-1 rows).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Point {
    /// Milliseconds since the monitor started.
    pub t_ms: u64,
    /// Cumulative CPU seconds of the server's processes (user + system).
    pub cpu_s: f64,
    /// The user-mode part of `cpu_s`.
    pub user_s: f64,
    /// The kernel part of `cpu_s`.
    pub sys_s: f64,
    /// Resident memory of the server's processes, KiB.
    pub rss_kb: u64,
    /// Cumulative CPU seconds of the generator: the shootout process and its load
    /// shards (its child processes outside the server's group).
    pub generator_cpu_s: f64,
    /// Cumulative CPU seconds of the database the harness started for the run (its
    /// postmaster's process tree); 0 without one.
    pub database_cpu_s: f64,
    /// Each core's busy share (0..1) since the previous point: task and interrupt work.
    pub cores: Vec<f32>,
    /// Each core's share (0..1) stolen by the hypervisor since the previous point.
    pub steal: Vec<f32>,
    /// CPU seconds of every other user process (not the server's, not the generator's)
    /// since the monitor's first point, processes that started and ended between points
    /// included (process::foreign_cpu): its growth over a run is foreign work. Series
    /// stored by earlier versions hold the sum over the processes alive at each point,
    /// whose growth missed such processes.
    pub others_cpu_s: f64,
}
