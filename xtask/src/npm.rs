//! `cargo xtask npm`: the npm package @examlops/gpu-sharing, built into target/npm/.

use crate::setup::Tools;
use crate::shell::{cargo, root, run, sizes, Cmd};
use std::path::{Path, PathBuf};

const PACKAGE: &str = "@examlops/gpu-sharing";
/// What rustc's wasm32 target emits by default; wasm-opt must accept the same features.
const WASM_FEATURES: &[&str] = &[
    "--enable-bulk-memory",
    "--enable-mutable-globals",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-reference-types",
    "--enable-multivalue",
    "--strip-debug",
    "--strip-producers",
];
const FILES: &[&str] = &[
    "index.js",
    "node.js",
    "api.js",
    "gpu_share_wasm.js",
    "gpu_share_wasm_bg.wasm",
    // wasm-bindgen's copy of wasm/js/transfer.js, which builds each result.
    "snippets/",
    "index.d.ts",
    "data.d.ts",
    "README.md",
];

/// How the package is built: rustc's `opt-level` for the `npm` profile (`None`: Cargo.toml's), the
/// wasm-opt level, and where it goes (only the default, target/npm, is linked for the tests).
pub struct Build {
    pub opt_level: Option<String>,
    pub wasm_opt: String,
    pub out: PathBuf,
}

impl Default for Build {
    fn default() -> Self {
        Build {
            opt_level: None,
            wasm_opt: "-Oz".into(),
            out: root().join("target/npm"),
        }
    }
}

impl Build {
    /// `cargo xtask npm [--opt-level L] [--wasm-opt -OX] [--out DIR]`.
    pub fn parse(args: &[String]) -> Result<Build, String> {
        const USAGE: &str = "usage: cargo xtask npm [--opt-level 0|1|2|3|s|z] [--wasm-opt -O|-O1|-O2|-O3|-O4|-Os|-Oz] [--out DIR]";
        let mut build = Build::default();
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().cloned().ok_or(USAGE)?;
            match flag.as_str() {
                "--opt-level" if ["0", "1", "2", "3", "s", "z"].contains(&value.as_str()) => {
                    build.opt_level = Some(value)
                }
                "--wasm-opt" if value.starts_with("-O") => build.wasm_opt = value,
                "--out" => build.out = std::path::absolute(&value).map_err(|e| e.to_string())?,
                _ => return Err(USAGE.into()),
            }
        }
        Ok(build)
    }

    fn is_default(&self) -> bool {
        self.out == Build::default().out
    }
}

pub fn build(tools: &Tools, build: &Build) -> Result<(), String> {
    let out = &build.out;
    let _ = std::fs::remove_dir_all(out);
    // Another opt-level builds in its own target folder, so the default build is not redone after it.
    let target = match &build.opt_level {
        Some(level) => root().join(format!("target/npm-opt-{level}")),
        None => root().join("target"),
    };
    let mut compile = cargo([
        "build",
        "-p",
        "gpu-share-wasm",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        "npm",
        "--target-dir",
        target.to_str().unwrap_or_default(),
    ]);
    if let Some(level) = &build.opt_level {
        compile = compile.env("CARGO_PROFILE_NPM_OPT_LEVEL", level);
    }
    run(compile)?;
    let wasm = target.join("wasm32-unknown-unknown/npm/gpu_share_wasm.wasm");
    run(Cmd::new("wasm-bindgen")
        .args([
            wasm.to_str().unwrap_or_default(),
            "--target",
            "web",
            "--no-typescript",
            "--out-name",
            "gpu_share_wasm",
            "--out-dir",
        ])
        .args([out.to_str().unwrap_or_default()])
        .path(&tools.path))?;
    let bg = out.join("gpu_share_wasm_bg.wasm");
    let bg = bg.to_str().unwrap_or_default();
    run(Cmd::new("wasm-opt")
        .args([build.wasm_opt.as_str(), bg, "-o", bg])
        .args(WASM_FEATURES)
        .path(&tools.path))?;
    let js = root().join("wasm/js");
    for file in ["index.js", "node.js", "api.js", "index.d.ts"] {
        copy(&js.join(file), &out.join(file))?;
    }
    copy(&root().join("wasm/README.md"), &out.join("README.md"))?;
    data_types(out)?;
    std::fs::write(out.join("package.json"), package_json()?)
        .map_err(|e| format!("cannot write package.json: {e}"))?;
    let (raw, gzipped) = sizes(Path::new(bg));
    eprintln!(
        "npm package in {}: .wasm {raw} bytes, {gzipped} bytes gzipped",
        out.display()
    );
    if build.is_default() {
        link_for_tests(out)
    } else {
        Ok(())
    }
}

/// `data.d.ts`: the types the package returns, generated from the core's Rust types by ts-rs (the
/// core's `ts` feature) and checked there against what the core serialises; `index.d.ts` imports them.
/// They are the `ts_export` module of the core's one test binary, `core`, run alone by its name.
fn data_types(out: &Path) -> Result<(), String> {
    run(cargo([
        "test",
        "-p",
        "gpu-share-core",
        "--features",
        "ts",
        "--test",
        "core",
        "ts_export::",
    ])
    .env("TS_RS_EXPORT_DIR", out.to_str().unwrap_or_default()))?;
    if out.join("data.d.ts").is_file() {
        Ok(())
    } else {
        Err("the ts_export tests wrote no data.d.ts".into())
    }
}

fn copy(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {}: {e}", from.display()))
}

/// The workspace version, so the package and the crates never disagree.
fn version() -> Result<String, String> {
    let toml = std::fs::read_to_string(root().join("Cargo.toml")).map_err(|e| e.to_string())?;
    let section = toml
        .split("[workspace.package]")
        .nth(1)
        .ok_or("no [workspace.package] in Cargo.toml")?;
    let line = section
        .lines()
        .find(|l| l.trim_start().starts_with("version"))
        .ok_or("no workspace version")?;
    Ok(line.split('"').nth(1).unwrap_or_default().to_string())
}

fn package_json() -> Result<String, String> {
    let files: Vec<String> = FILES.iter().map(|f| format!("\"{f}\"")).collect();
    Ok(format!(
        r#"{{
  "name": "{PACKAGE}",
  "version": "{}",
  "description": "Fractional GPU planning (MIG, MPS, time-slicing) and GPU-hour accounting: the gpu-share Rust core as WebAssembly",
  "license": "Apache-2.0",
  "type": "module",
  "main": "./node.js",
  "types": "./index.d.ts",
  "exports": {{
    ".": {{
      "types": "./index.d.ts",
      "node": "./node.js",
      "default": "./index.js"
    }},
    "./package.json": "./package.json"
  }},
  "files": [{}],
  "sideEffects": ["./index.js", "./node.js"],
  "engines": {{ "node": ">=20" }},
  "keywords": ["gpu", "mig", "mps", "time-slicing", "bin-packing", "finops", "webassembly"]
}}
"#,
        version()?,
        files.join(", ")
    ))
}

/// Makes the built package importable by name from tests/npm/, the way `npm link` would.
fn link_for_tests(out: &Path) -> Result<(), String> {
    let scope = root().join("tests/npm/node_modules/@examlops");
    std::fs::create_dir_all(&scope).map_err(|e| e.to_string())?;
    let link = scope.join("gpu-sharing");
    let _ = std::fs::remove_file(&link);
    let _ = std::fs::remove_dir_all(&link);
    std::os::unix::fs::symlink(out, &link)
        .map_err(|e| format!("cannot link {}: {e}", link.display()))
}
