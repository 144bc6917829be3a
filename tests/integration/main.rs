//! One test binary (Bevy is linked once) with a module per area.

mod animation;
mod assets;
mod batch;
mod blp;
mod chunks;
mod cli;
mod culling;
mod export;
mod fuzz_regressions;
mod game_files;
mod lwo;
mod lwo3;
mod m2;
mod morphs;
mod mpq;
mod mutation;
mod panel;
mod plugin_example;
mod render;
mod scene;
mod support;
mod window;
mod wmo;
