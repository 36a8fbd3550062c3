//! rustls-ffi's C functions, bundled into one static library (a staticlib keeps every
//! `#[no_mangle]` function of its dependencies) for the C server to link.
pub use rustls_ffi;
