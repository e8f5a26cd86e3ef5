//! Idempotent set-up: each tool is checked by its version and installed only when missing or wrong;
//! each system binary is checked on its own, and only the packages of missing ones are installed.
//!
//! Everything comes from the package registries (crates.io, npm, Debian); nothing is downloaded
//! from GitHub, which is why Trunk runs `--offline` with the tools below on its PATH.

use crate::shell::{cargo, output, root, run, Cmd};
use std::ffi::OsString;
use std::path::PathBuf;

/// Trunk 0.22 needs rustc 1.96.1 or newer; these machines have rustc 1.95, so Trunk stays on 0.21.
const TRUNK_VERSION: &str = "0.21.14";

/// cargo-fuzz 0.13.2 runs its targets on the stable toolchain with `--sanitizer none`.
const CARGO_FUZZ_VERSION: &str = "0.13.2";

/// What the later steps need: a PATH with the installed tools first.
pub struct Tools {
    pub path: OsString,
}

/// Everything: what building needs, and what the tests need besides (Chromium, the Kubernetes
/// schema validator, cargo-fuzz).
pub fn all() -> Result<Tools, String> {
    let tools = build()?;
    chromium()?;
    kubernetes_validator()?;
    cargo_fuzz()?;
    Ok(tools)
}

/// What building the page and the npm package needs (for `serve`, `dist` and `npm`).
pub fn build() -> Result<Tools, String> {
    let path = tool_path();
    wasm_target()?;
    cargo_tool("trunk", "trunk", TRUNK_VERSION, &["--locked"], &path)?;
    // The CLI must match the wasm-bindgen crate exactly; its locked build wants a webpki-roots
    // version the registry refuses, so it installs without --locked.
    cargo_tool(
        "wasm-bindgen",
        "wasm-bindgen-cli",
        &locked_version("wasm-bindgen")?,
        &[],
        &path,
    )?;
    npm_packages(&path)?;
    Ok(Tools { path })
}

/// cargo-fuzz, for `cargo xtask fuzz` (a cargo subcommand: found in `~/.cargo/bin`).
pub fn cargo_fuzz() -> Result<(), String> {
    cargo_tool(
        "cargo-fuzz",
        "cargo-fuzz",
        CARGO_FUZZ_VERSION,
        &["--locked"],
        &tool_path(),
    )
}

fn tool_path() -> OsString {
    let mut dirs = vec![root().join("tests/node_modules/.bin")];
    if let Some(home) = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
    {
        dirs.push(home.join("bin"));
    }
    dirs.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(dirs).unwrap_or_default()
}

fn wasm_target() -> Result<(), String> {
    let installed =
        output(Cmd::new("rustup").args(["target", "list", "--installed"])).unwrap_or_default();
    if installed
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        return Ok(());
    }
    run(Cmd::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
}

fn cargo_tool(
    bin: &str,
    krate: &str,
    version: &str,
    extra: &[&str],
    path: &OsString,
) -> Result<(), String> {
    let have = output(Cmd::new(bin).args(["--version"]).path(path)).unwrap_or_default();
    if have.split_whitespace().any(|w| w == version) {
        return Ok(());
    }
    eprintln!(
        "xtask: installing {krate} {version} (found: {})",
        have.trim()
    );
    run(cargo(["install", krate, "--version", version, "--force"]).args(extra))
}

/// The version of `name` that Cargo.lock pins.
fn locked_version(name: &str) -> Result<String, String> {
    let lock = std::fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let needle = format!("name = \"{name}\"\nversion = \"");
    let start = lock
        .find(&needle)
        .ok_or(format!("{name} is not in Cargo.lock"))?
        + needle.len();
    Ok(lock[start..]
        .split('"')
        .next()
        .unwrap_or_default()
        .to_string())
}

/// `npm ci` in each test folder whose lockfile changed since its last install: tests/ (playwright-core,
/// binaryen's wasm-opt) and tests/npm/ (typescript, vite, for the package's consumers).
fn npm_packages(path: &OsString) -> Result<(), String> {
    for dir in ["tests", "tests/npm"] {
        let lock = root().join(dir).join("package-lock.json");
        let stamp = root().join(dir).join("node_modules/.xtask-installed-lock");
        let want =
            std::fs::read(&lock).map_err(|e| format!("cannot read {}: {e}", lock.display()))?;
        if std::fs::read(&stamp).ok().as_deref() == Some(&want[..]) {
            continue;
        }
        run(Cmd::new("npm")
            .args(["ci", "--prefix", dir, "--no-audit", "--no-fund"])
            .path(path))?;
        std::fs::write(&stamp, &want)
            .map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    }
    Ok(())
}

/// Debian's Chromium for the browser tests: the browser and the WebDriver that
/// wasm-bindgen-test-runner drives it with are separate packages, so each is checked on its own.
pub fn chromium() -> Result<(), String> {
    apt_install_missing(&[
        (exists("/usr/bin/chromium"), "chromium"),
        (exists("/usr/bin/chromedriver"), "chromium-driver"),
    ])
}

/// Whether a system binary is installed at `path`.
fn exists(path: &str) -> bool {
    std::path::Path::new(path).exists()
}

/// Installs the package of each `(present, package)` pair that is not present, and only those.
fn apt_install_missing(needs: &[(bool, &str)]) -> Result<(), String> {
    let missing: Vec<&str> = needs
        .iter()
        .filter(|(present, _)| !present)
        .map(|&(_, package)| package)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    apt_install(&missing)
}

/// `apt-get install` as root; anyone else is told the command to run.
fn apt_install(packages: &[&str]) -> Result<(), String> {
    let root_user = output(Cmd::new("id").args(["-u"])).is_some_and(|u| u.trim() == "0");
    if !root_user {
        return Err(format!(
            "missing system packages: run `sudo apt-get install {}`",
            packages.join(" ")
        ));
    }
    run(Cmd::new("apt-get").args(["update"]))?;
    run(Cmd::new("apt-get")
        .args(["install", "-y", "--no-install-recommends"])
        .args(packages.iter().copied()))
}

/// The independent checker of our Kubernetes output: `kubernetes-validate` from PyPI, which carries
/// the official Kubernetes JSON schemas offline, in a virtualenv under `.tools/`.
const KUBERNETES_VALIDATE: &str = "1.37.0";

fn kubernetes_validator() -> Result<(), String> {
    // tests/k8s/schema.test.mjs runs it from here.
    let bin = root().join(".tools/venv/bin/kubernetes-validate");
    let have = output(Cmd::new(&bin.to_string_lossy()).args(["--version"])).unwrap_or_default();
    if have.split_whitespace().any(|w| w == KUBERNETES_VALIDATE) {
        return Ok(());
    }
    let venv = root().join(".tools/venv");
    if !venv.join("bin/pip").exists() {
        python_venv()?;
        run(Cmd::new("python3").args(["-m", "venv", &venv.to_string_lossy()]))?;
    }
    eprintln!("xtask: installing kubernetes-validate {KUBERNETES_VALIDATE}");
    run(Cmd::new(&venv.join("bin/pip").to_string_lossy()).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        &format!("kubernetes-validate=={KUBERNETES_VALIDATE}"),
    ]))
}

/// Python 3 and its `venv` with `ensurepip` (Debian ships those apart, in python3-venv), each
/// checked on its own.
fn python_venv() -> Result<(), String> {
    let python = output(Cmd::new("python3").args(["--version"])).is_some();
    let venv =
        python && output(Cmd::new("python3").args(["-c", "import venv, ensurepip"])).is_some();
    apt_install_missing(&[(python, "python3"), (venv, "python3-venv")])
}
