//! The implementation of each subcommand.

use anyhow::Result;
use hlox_hlo::load::{load_module, save_module};
use std::io::Write;
use std::path::Path;

pub fn fmt(file: &Path) -> Result<()> {
    let m = load_module(file)?;
    let text = hlox_hlo::text::print::print_module(&m);
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

pub fn convert(input: &Path, output: &Path) -> Result<()> {
    let m = load_module(input)?;
    save_module(&m, output)?;
    Ok(())
}
