//! The `gpu-share` binary: a thin shell over the `gpu_share_cli` library.

use std::process::ExitCode;

fn main() -> ExitCode {
    let env = gpu_share_cli::Env::from_process();
    // Buffered: standard output is line-buffered, and a pretty-printed JSON of 100,000 GPUs is
    // millions of lines. `gpu_share_cli::main` flushes it and reports a write error.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut err = std::io::stderr().lock();
    gpu_share_cli::main(std::env::args_os(), &env, &mut out, &mut err)
}
