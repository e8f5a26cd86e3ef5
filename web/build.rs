//! With feature `split`, the page's WebAssembly keeps its relocations (`--emit-relocs`): the
//! split (`xtask/src/split.rs`, wasm_split_cli_support) needs them to move functions and the
//! function-table entries that point at them into the split-out modules.

fn main() {
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    if wasm && std::env::var_os("CARGO_FEATURE_SPLIT").is_some() {
        println!("cargo:rustc-link-arg-bin=gpu-share-web=--emit-relocs");
    }
}
