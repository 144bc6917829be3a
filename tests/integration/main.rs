//! One test binary (Bevy is linked once) with a module per area.

mod assets;
mod chunks;
mod cli;
mod fuzz_regressions;
mod lwo;
mod m2;
mod mpq;
mod mutation;
mod panel;
mod render;
mod support;
mod window;
mod wmo;
