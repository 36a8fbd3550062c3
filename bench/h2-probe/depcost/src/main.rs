fn main() { let _ = h2::client::Builder::new(); }
