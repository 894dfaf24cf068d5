//! The C ABI driven from Rust, as a C caller would: one test binary, modules by area.

mod common;
mod errors;
mod header;
mod plugins;
mod same_files;
mod threads;
