//! The `gpu-share` binary: a thin shell over the `gpu_share_cli` library.

use std::process::ExitCode;

fn main() -> ExitCode {
    let env = gpu_share_cli::Env::from_process();
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    gpu_share_cli::main(std::env::args_os(), &env, &mut out, &mut err)
}
