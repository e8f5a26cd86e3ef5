//! `cargo xtask`: set-up, build, serve, test and CI for the gpu-share workspace, in plain Rust.

mod checks;
mod fuzz;
mod npm;

use shell::{cargo, run, Cmd};
use std::process::ExitCode;
use xtask::{setup, shell, split};

const USAGE: &str = "\
usage: cargo xtask <command>

  serve [--port N]  build the web planner and serve it on 127.0.0.1 (installs what is missing)
  test              run every test: Rust, wasm32 build, browser end-to-end (installs what is missing)
  lint              fmt --check, clippy -D warnings (native and wasm32), core wasm32 build, core dependency check
  ci                what CI runs: lint, then test
  dist              write the static web planner to dist/
  npm               build the npm package @examlops/gpu-sharing into target/npm/
                    ([--opt-level L] [--wasm-opt -OX] [--out DIR]: another build, for the bench)
  fuzz [--seconds N] [--target NAME]
                    every cargo-fuzz target in fuzz/ for N s each (default 30, stable toolchain); prints the runs
  bench --bpplib DIR [--only PART[,PART...]] [...]
                    packing quality (BPPLIB instances and optima.tsv in DIR, not shipped) and speed;
                    writes BENCHMARKS.md (`cargo xtask bench --help` says what DIR holds)
  setup             only install what is missing (wasm32 target, trunk, wasm-bindgen-cli, cargo-fuzz, npm tools, chromium)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]),
        Some("test") => test(),
        Some("lint") => lint(),
        Some("ci") => lint().and_then(|()| test()),
        Some("dist") => setup::build().and_then(|tools| dist(&tools)),
        Some("bench") => bench(&args[1..]),
        Some("fuzz") => fuzz::Options::parse(&args[1..]).and_then(|o| fuzz::run_targets(&o)),
        Some("npm") => npm::Build::parse(&args[1..])
            .and_then(|b| setup::build().and_then(|tools| npm::build(&tools, &b))),
        Some("setup") => setup::all().map(|_| ()),
        // Run by Trunk while `dist` or `serve` builds the page (src/split.rs), not by people.
        Some("split-bindgen") => split::bindgen(&args[1..]),
        Some("split-link") => split::link(),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Builds `dist/`: the release web page, wasm-opt'd, with relative paths.
fn dist(tools: &setup::Tools) -> Result<(), String> {
    run(Cmd::new("trunk")
        .args(["build", "--release", "--offline"])
        .path(&split::path_with_shim(&tools.path)?))?;
    let wasm = std::fs::read_dir(shell::root().join("dist"))
        .map_err(|e| format!("cannot read dist/: {e}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "wasm"))
        .ok_or("dist/ has no .wasm")?;
    let (raw, gzipped) = shell::sizes(&wasm);
    eprintln!("web page in dist/: .wasm {raw} bytes, {gzipped} bytes gzipped");
    Ok(())
}

/// The bench is its own crate (`bench/`), always a release build: a debug build's timings mean
/// nothing. It runs in the caller's folder, so the folders named on its command line read as the
/// caller wrote them.
fn bench(args: &[String]) -> Result<(), String> {
    run(
        cargo(["run", "--quiet", "--release", "-p", "gpu-share-bench", "--"])
            .args(args)
            .in_caller_dir(),
    )
}

fn serve(args: &[String]) -> Result<(), String> {
    let port = match args {
        [] => "8080".to_string(),
        [flag, port] if flag == "--port" => port.clone(),
        _ => return Err("usage: cargo xtask serve [--port N]".into()),
    };
    let tools = setup::build()?;
    println!("xtask: serving the planner at http://127.0.0.1:{port}/ (Ctrl-C stops)");
    run(Cmd::new("trunk")
        .args([
            "serve",
            "--release",
            "--offline",
            "--address",
            "127.0.0.1",
            "--port",
            &port,
        ])
        .path(&split::path_with_shim(&tools.path)?))
}

fn test() -> Result<(), String> {
    let tools = setup::all()?;
    run(cargo(["test", "--workspace", "--all-targets"]))?;
    run(cargo(["test", "--workspace", "--doc"]))?;
    // The core without its optional `serde` feature (JSON readers and writers off) still builds and passes.
    run(cargo([
        "test",
        "-p",
        "gpu-share-core",
        "--no-default-features",
    ]))?;
    // No panics on any input: the property suite at a large case count, then every fuzz target.
    fuzz::no_panic_properties()?;
    fuzz::run_targets(&fuzz::Options {
        seconds: fuzz::TEST_SECONDS,
        target: None,
    })?;
    checks::core_builds_for_wasm()?;
    // Our Kubernetes YAML against the official schemas, checked by an independent validator.
    run(cargo(["build", "-p", "gpu-share-cli"]))?;
    node_tests("tests/k8s/", &tools)?;
    // The web crate's browser-only tests, in headless Chromium through wasm-bindgen-test-runner.
    run(cargo([
        "test",
        "-p",
        "gpu-share-web",
        "--target",
        "wasm32-unknown-unknown",
        "--test",
        "browser",
    ])
    .path(&tools.path))?;
    dist(&tools)?;
    node_tests("tests/e2e/", &tools)?;
    npm::build(&tools, &npm::Build::default())?;
    node_tests("tests/npm/", &tools)?;
    run(Cmd::new("tests/npm/node_modules/.bin/tsc")
        .args(["-p", "tests/npm/tsconfig.json"])
        .path(&tools.path))
}

/// Node's own test runner over one folder of `*.test.mjs` files.
fn node_tests(dir: &str, tools: &setup::Tools) -> Result<(), String> {
    run(Cmd::new("node")
        .args(["--test", "--test-reporter=spec", dir])
        .path(&tools.path))
}

fn lint() -> Result<(), String> {
    checks::front_ends_use_only_the_api()?;
    setup::all()?;
    run(Cmd::new("rustup").args(["component", "add", "rustfmt", "clippy"]))?;
    run(cargo(["fmt", "--all", "--check"]))?;
    // The fuzz crate is its own workspace (cargo-fuzz's layout), so `--all` does not reach it.
    run(cargo([
        "fmt",
        "--manifest-path",
        "fuzz/Cargo.toml",
        "--check",
    ]))?;
    run(cargo([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The core's optional `ts` feature (the npm package's generated types) and its export test.
    run(cargo([
        "clippy",
        "-p",
        "gpu-share-core",
        "--features",
        "ts",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The page as it ships: its later panels as split points (web/src/lazy.rs).
    run(cargo([
        "clippy",
        "-p",
        "gpu-share-web",
        "--target",
        "wasm32-unknown-unknown",
        "--features",
        "split",
        "--",
        "-D",
        "warnings",
    ]))?;
    // The API docs build without broken or private links.
    run(cargo(["doc", "--workspace", "--no-deps"]).env("RUSTDOCFLAGS", "-D warnings"))?;
    checks::core_dependencies_are_pure()?;
    checks::core_builds_for_wasm()
}
