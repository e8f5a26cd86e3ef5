//! The page's WebAssembly in parts: what the first plan needs, fetched at once, and the panels of
//! `web/src/lazy.rs`, each fetched when it is first built (BENCHMARKS.md, first load).
//!
//! Trunk builds the page and runs `wasm-bindgen` from `PATH`; `cargo xtask dist` and `serve` put
//! ours first ([`path_with_shim`]). It cuts the module Trunk built at the split points
//! (wasm_split_cli_support, the splitter cargo-leptos uses: the split-out functions, the chunks
//! they share, and `__wasm_split.js`, which fetches them) into `snippets/split-<hash>/` of
//! wasm-bindgen's output, which Trunk copies beside the page, and runs the real wasm-bindgen on
//! the main part. The loader imports the main module, whose file name Trunk hashes only after
//! wasm-bindgen, so Trunk's post-build hook (`cargo xtask split-link`, Trunk.toml) writes it in.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use crate::shell::{root, run, Cmd};

/// What the loader imports the main module as until [`link`] names the real file.
const MAIN_MARKER: &str = "./@gpu-share-main-module@.js";
/// Where Trunk finds wasm-bindgen's extra files (it copies this folder beside the page).
const SNIPPETS: &str = "snippets";
const SPLIT_PREFIX: &str = "split-";
const LOADER: &str = "__wasm_split.js";
/// The import module of split points not cut yet (wasm_split_helpers' placeholder).
const PLACEHOLDER: &[u8] = b"__wasm_split_placeholder__";

/// `path` with a folder holding our `wasm-bindgen` first: a script that runs this xtask binary's
/// `split-bindgen`.
pub fn path_with_shim(path: &OsString) -> Result<OsString, String> {
    let dir = shim_dir();
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let xtask = std::env::current_exe().map_err(|e| format!("cannot find xtask itself: {e}"))?;
    let script = format!(
        "#!/bin/sh\n# Written by cargo xtask (xtask/src/split.rs): Trunk's wasm-bindgen, splitting the page first.\nexec '{}' split-bindgen \"$@\"\n",
        xtask.display()
    );
    let shim = dir.join("wasm-bindgen");
    std::fs::write(&shim, script).map_err(|e| format!("cannot write {}: {e}", shim.display()))?;
    make_executable(&shim)?;
    let mut dirs = vec![dir];
    dirs.extend(std::env::split_paths(path));
    std::env::join_paths(dirs).map_err(|e| e.to_string())
}

/// Where the shim is written, in this checkout's `target/`.
fn shim_dir() -> PathBuf {
    root().join("target/xtask/bindgen-shim")
}

#[cfg(unix)]
fn make_executable(file: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755))
        .map_err(|e| format!("cannot make {} executable: {e}", file.display()))
}

#[cfg(not(unix))]
fn make_executable(_: &Path) -> Result<(), String> {
    Ok(())
}

/// `cargo xtask split-bindgen ARGS` (run by the shim): wasm-bindgen `ARGS` as Trunk gives them
/// (`--out-dir=D --out-name=N … INPUT`), with INPUT split first when it has split points.
pub fn bindgen(args: &[String]) -> Result<(), String> {
    let real = real_wasm_bindgen()?;
    let input = args.iter().rposition(|a| !a.starts_with('-'));
    let out_dir = args.iter().find_map(|a| a.strip_prefix("--out-dir="));
    let (Some(input), Some(out_dir)) = (input, out_dir) else {
        // `--version` and the like: what the real one says.
        return run(Cmd::new(&real.to_string_lossy()).args(args));
    };
    let wasm =
        std::fs::read(&args[input]).map_err(|e| format!("cannot read {}: {e}", args[input]))?;
    let mut args = args.to_vec();
    if wasm.windows(PLACEHOLDER.len()).any(|w| w == PLACEHOLDER) {
        args[input] = split(&wasm, Path::new(out_dir))?.display().to_string();
        // The parts call through the main module's function table, which wasm-bindgen would
        // otherwise stop exporting.
        args.push("--keep-lld-exports".into());
    }
    run(Cmd::new(&real.to_string_lossy()).args(&args))
}

/// Cuts `wasm` into `OUT/snippets/split-<hash>/`; returns the main part's path.
fn split(wasm: &[u8], out_dir: &Path) -> Result<PathBuf, String> {
    let snippets = out_dir.join(SNIPPETS);
    remove_earlier_splits(&snippets)?;
    let name = format!("{SPLIT_PREFIX}{:016x}", fnv1a(wasm));
    let dir = snippets.join(&name);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let main = out_dir.join("split-main.wasm");
    let link_name = format!("./{SNIPPETS}/{name}/{LOADER}");
    // The splitter writes the loader at `link_name` under `output_dir` (where the main module
    // imports it from) and the parts in `output_dir` itself; the loader fetches them from beside
    // itself, so they move there.
    let mut options = wasm_split_cli_support::Options::new(wasm);
    options.output_dir = out_dir;
    options.main_out_path = &main;
    options.link_name = &link_name;
    options.main_module = MAIN_MARKER;
    options.target.web();
    let parts = wasm_split_cli_support::transform(options)
        .map_err(|e| format!("cannot split the page's WebAssembly: {e:#}"))?;
    for part in &parts.split_modules {
        let to = dir.join(part.file_name().unwrap_or_default());
        std::fs::rename(part, &to)
            .map_err(|e| format!("cannot move {} to {}: {e}", part.display(), to.display()))?;
        // Trunk optimises the main part; the others as it does (which also drops their names:
        // 517 KB gzipped before, 351 KB after, on 2026-12-06).
        let to = to.display().to_string();
        run(Cmd::new("wasm-opt").args(["-Oz", &to, "-o", &to]))?;
    }
    eprintln!(
        "split the page's WebAssembly: {} parts fetched after the first plan, in {}",
        parts.split_modules.len(),
        dir.display()
    );
    Ok(main)
}

/// Earlier builds' parts (the folder is named by the module's hash, so a page never fetches
/// another build's parts from a cache).
fn remove_earlier_splits(snippets: &Path) -> Result<(), String> {
    for dir in split_dirs(snippets) {
        std::fs::remove_dir_all(&dir)
            .map_err(|e| format!("cannot remove {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// The split's folders in a `snippets/` folder (none if it has none).
fn split_dirs(snippets: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(snippets).into_iter().flatten().flatten();
    entries
        .filter(|e| e.file_name().to_string_lossy().starts_with(SPLIT_PREFIX))
        .map(|e| e.path())
        .collect()
}

/// The parts of the page built in `dist`: the `.wasm` files a first plan does not load.
pub fn parts(dist: &Path) -> Vec<PathBuf> {
    let dirs = split_dirs(&dist.join(SNIPPETS));
    dirs.iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|f| f.path())
        .filter(|p| p.extension().is_some_and(|x| x == "wasm"))
        .collect()
}

/// The `wasm-bindgen` on `PATH` after our shim's folder.
fn real_wasm_bindgen() -> Result<PathBuf, String> {
    let shim_dir = shim_dir();
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .filter(|dir| dir != &shim_dir)
        .map(|dir| dir.join("wasm-bindgen"))
        .find(|file| file.is_file())
        .ok_or_else(|| "wasm-bindgen is not on PATH (cargo xtask setup installs it)".into())
}

/// FNV-1a, 64 bits: a name for this build's parts.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `cargo xtask split-link` (Trunk's post-build hook): names the main module, as Trunk hashed
/// it, in the loader of the parts in Trunk's staging folder (`TRUNK_STAGING_DIR`).
pub fn link() -> Result<(), String> {
    let staging = std::env::var_os("TRUNK_STAGING_DIR")
        .ok_or("split-link is Trunk's post-build hook: TRUNK_STAGING_DIR is not set")?;
    link_in(Path::new(&staging))
}

fn link_in(staging: &Path) -> Result<(), String> {
    let main = main_module(staging)?;
    let source = std::fs::read_to_string(&main)
        .map_err(|e| format!("cannot read {}: {e}", main.display()))?;
    let loader = find_loader(&staging.join(SNIPPETS));
    let Some(loader) = loader else {
        if source.contains(std::str::from_utf8(PLACEHOLDER).unwrap_or_default()) {
            return Err("the page's WebAssembly was not split: build it with `cargo xtask dist` or `cargo xtask serve`, which give Trunk the wasm-bindgen that splits it".into());
        }
        return Ok(());
    };
    let file_name = main
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(&loader)
        .map_err(|e| format!("cannot read {}: {e}", loader.display()))?;
    if !text.contains(MAIN_MARKER) {
        return Err(format!(
            "{} does not import the main module as {MAIN_MARKER}",
            loader.display()
        ));
    }
    let linked = text.replace(MAIN_MARKER, &format!("../../{file_name}"));
    std::fs::write(&loader, linked).map_err(|e| format!("cannot write {}: {e}", loader.display()))
}

/// The wasm-bindgen module Trunk wrote: the staging folder's `.js` that exports `initSync`.
fn main_module(staging: &Path) -> Result<PathBuf, String> {
    let entries = std::fs::read_dir(staging)
        .map_err(|e| format!("cannot read {}: {e}", staging.display()))?;
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "js"))
        .find(|p| std::fs::read_to_string(p).is_ok_and(|s| s.contains("initSync")))
        .ok_or_else(|| format!("{} has no wasm-bindgen module", staging.display()))
}

/// `snippets/split-*/__wasm_split.js`, if the page was split.
fn find_loader(snippets: &Path) -> Option<PathBuf> {
    split_dirs(snippets)
        .into_iter()
        .map(|dir| dir.join(LOADER))
        .find(|p| p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A staging folder with a main module and, when `split`, a loader importing the marker;
    /// removed when the returned guard drops.
    fn staging(main: &str, split: bool) -> tempfile::TempDir {
        let guard = tempfile::Builder::new()
            .prefix("gpu-share-split-")
            .tempdir()
            .unwrap();
        let dir = guard.path();
        std::fs::create_dir_all(dir.join("snippets/split-0123456789abcdef")).unwrap();
        std::fs::write(dir.join("boot.js"), "await import(tag.dataset.js);").unwrap();
        std::fs::write(dir.join("gpu-share-web-ab12.js"), main).unwrap();
        if split {
            let loader = format!("import {{ initSync }} from \"{MAIN_MARKER}\";\n");
            std::fs::write(
                dir.join("snippets/split-0123456789abcdef").join(LOADER),
                loader,
            )
            .unwrap();
        }
        guard
    }

    #[test]
    fn the_loader_imports_the_main_module_by_its_hashed_name() {
        let staged = staging("export { initSync, __wbg_init as default };", true);
        let dir = staged.path();
        link_in(dir).unwrap();
        let loader =
            std::fs::read_to_string(dir.join("snippets/split-0123456789abcdef").join(LOADER))
                .unwrap();
        assert_eq!(
            loader,
            "import { initSync } from \"../../gpu-share-web-ab12.js\";\n"
        );
        // Linked once: a second run finds no marker and says so.
        assert!(link_in(dir)
            .unwrap_err()
            .contains("does not import the main module"));
    }

    #[test]
    fn a_page_built_without_the_split_is_refused_with_the_commands_that_split_it() {
        let main = "import * as import1 from \"__wasm_split_placeholder__\"; export { initSync };";
        let unsplit = staging(main, false);
        assert!(link_in(unsplit.path())
            .unwrap_err()
            .contains("cargo xtask dist"));
        // A page without split points needs nothing.
        let plain = staging("export { initSync };", false);
        assert_eq!(link_in(plain.path()), Ok(()));
    }
}
