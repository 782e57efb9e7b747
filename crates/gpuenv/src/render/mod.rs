//! Renderers: one module per output format, each writing to any `Write` so tests render into a
//! `Vec<u8>` without colour.

pub mod drift;
pub mod explain;
pub mod facts;
pub mod human;
pub mod json;
pub mod ldd;
pub mod markdown;
pub mod plan;
pub mod prometheus;
pub mod redact;
pub mod verify;
