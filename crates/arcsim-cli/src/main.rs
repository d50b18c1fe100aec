//! `arcsim`: command-line front end. See `arcsim --help` and docs/.

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: arcsim_cli::hugealloc::HugePageAlloc = arcsim_cli::hugealloc::HugePageAlloc;

fn main() -> ExitCode {
    arcsim_cli::main()
}
