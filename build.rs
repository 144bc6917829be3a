// Present only so that `[build-dependencies]` in Cargo.toml take part in feature resolution; see there.
fn main() {}
