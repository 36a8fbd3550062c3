//! The machine as a whole, shared by every process on it: how busy its cores are (a
//! quiet machine before each round, the host's noise at idle), and the lock that lets
//! one harness at a time run on it, naming its holder by a process identity.

pub mod cores;
pub mod host_noise;
pub mod idle;
pub mod machine_lock;
pub mod process_identity;
