//! The `gpu-share` command line: arguments in, one call to the core's use-case layer (`gpu_share_core::api`), text or JSON out. Its I/O: the files it is given, the ledger file, `export -o FILE`, and `nvidia-smi -q -x` run by `detect` when no file is given.

mod args;
mod commands;
mod env;
mod exit;
mod ledger_file;
mod output;

pub use env::{Env, Stream};
pub use exit::{CliError, Code};

use clap::Parser;
use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

/// Parses `argv`, runs the command, and reports errors on `err`. Never panics on input.
pub fn main(
    argv: impl IntoIterator<Item = OsString>,
    env: &Env,
    out: &mut impl Write,
    err: &mut impl Write,
) -> ExitCode {
    let cli = match args::Cli::try_parse_from(argv) {
        Ok(cli) => cli,
        Err(e) => {
            // clap renders help and version as "errors" too; they go to stdout with success.
            let code = if e.use_stderr() {
                Code::Usage
            } else {
                Code::Ok
            };
            // Rendered here rather than by clap's `print` (whose `ColorChoice` sees the real
            // streams), so help and errors follow the CLI's one colour rule for their stream.
            let (target, stream): (&mut dyn Write, _) = if e.use_stderr() {
                (err, Stream::Stderr)
            } else {
                (out, Stream::Stdout)
            };
            let text = e.render();
            let _ = if env.colour(stream) {
                write!(target, "{}", text.ansi())
            } else {
                write!(target, "{text}")
            };
            return code.into();
        }
    };
    // `out` may be buffered (the binary's is): a write error can surface only at the flush.
    let ran = run(cli, env, out, err)
        .and_then(|code| out.flush().map(|()| code).map_err(CliError::Output));
    match ran {
        Ok(code) => code.into(),
        // A reader that stops early (`| head`) is not an error worth reporting.
        Err(CliError::Output(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => Code::Ok.into(),
        Err(e) => {
            let _ = writeln!(err, "gpu-share: error: {e}");
            e.code().into()
        }
    }
}

/// Runs one parsed command.
///
/// # Errors
/// Any input, ledger or output error, with the exit code it maps to.
pub fn run(
    cli: args::Cli,
    env: &Env,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Code, CliError> {
    let flags = args::flags::of(&cli.command);
    // Errors about a flag's value name the flag (`args::flags`).
    run_command(cli.command, env, out, err).map_err(|e| args::flags::name_flags(e, &flags))
}

fn run_command(
    command: args::Command,
    env: &Env,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Code, CliError> {
    let style = output::Style::detect(env);
    match command {
        args::Command::Plan(a) => commands::plan::run(a.into_config()?, env, style, out),
        args::Command::Pack(a) => commands::pack::run(a.into_config()?, env, style, out),
        args::Command::Accounting(a) => {
            commands::accounting::run(a.into_config()?, env, style, out)
        }
        args::Command::Release(a) => commands::release::run(&a, env, out),
        args::Command::Models(a) => commands::models::run(&a, out),
        args::Command::Detect(a) => commands::detect::run(a.into_config()?, style, out),
        args::Command::Export(a) => commands::export::run(a.into_config()?, out, err),
        args::Command::SimulateDra(a) => commands::simulate_dra::run(a.into_config()?, out),
        args::Command::ValidateMig(a) => commands::validate_mig::run(a.into_config()?, style, out),
        args::Command::Fit(a) => commands::fit::run(a.into_config()?, style, out),
        args::Command::Repartition(a) => commands::repartition::run(a.into_config()?, style, out),
        args::Command::Size(a) => commands::size::run(a.into_config()?, style, out, err),
        args::Command::Replay(a) => commands::replay::run(a.into_config()?, style, out),
    }
}
