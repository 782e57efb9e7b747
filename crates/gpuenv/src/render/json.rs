//! The JSON renderer: the `Report` object, pretty-printed, one trailing newline.

use std::io::{self, Write};

use crate::report::Report;

pub fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, report)?;
    writeln!(out)
}
