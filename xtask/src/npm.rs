//! `cargo xtask npm`: the npm package @examlops/gpu-sharing, built into target/npm/.

use crate::setup::Tools;
use crate::shell::{cargo, root, run, sizes, Cmd};
use std::path::Path;

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
    "index.d.ts",
    "data.d.ts",
    "README.md",
];

pub fn build(tools: &Tools) -> Result<(), String> {
    let out = root().join("target/npm");
    let _ = std::fs::remove_dir_all(&out);
    run(cargo([
        "build",
        "-p",
        "gpu-share-wasm",
        "--target",
        "wasm32-unknown-unknown",
        "--profile",
        "npm",
    ]))?;
    let wasm = root().join("target/wasm32-unknown-unknown/npm/gpu_share_wasm.wasm");
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
        .args(["-Oz", bg, "-o", bg])
        .args(WASM_FEATURES)
        .path(&tools.path))?;
    let js = root().join("wasm/js");
    for file in ["index.js", "node.js", "api.js", "index.d.ts"] {
        copy(&js.join(file), &out.join(file))?;
    }
    copy(&root().join("wasm/README.md"), &out.join("README.md"))?;
    data_types(&out)?;
    std::fs::write(out.join("package.json"), package_json()?)
        .map_err(|e| format!("cannot write package.json: {e}"))?;
    let (raw, gzipped) = sizes(Path::new(bg));
    eprintln!("npm package in target/npm: .wasm {raw} bytes, {gzipped} bytes gzipped");
    link_for_tests(&out)
}

/// `data.d.ts`: the types the package returns, generated from the core's Rust types by ts-rs (the
/// core's `ts` feature) and checked there against what the core serialises; `index.d.ts` imports them.
fn data_types(out: &Path) -> Result<(), String> {
    run(cargo([
        "test",
        "-p",
        "gpu-share-core",
        "--features",
        "ts",
        "--test",
        "ts_export",
    ])
    .env("TS_RS_EXPORT_DIR", out.to_str().unwrap_or_default()))?;
    if out.join("data.d.ts").is_file() {
        Ok(())
    } else {
        Err("the ts_export test wrote no data.d.ts".into())
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
