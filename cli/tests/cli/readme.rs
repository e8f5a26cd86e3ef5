//! README.md's `console` examples are run and compared, so the README never shows output the CLI does not print.

use crate::common::gpu_share;

#[test]
fn readme_console_examples_match_the_cli() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    let mut checked = 0;
    for block in readme.split("```console\n").skip(1) {
        let block = block.split("```").next().unwrap();
        // Each `$ gpu-share …` line starts an example; the lines up to the next one are its output.
        let mut examples: Vec<(String, String)> = Vec::new();
        for line in block.lines() {
            match line.strip_prefix("$ gpu-share ") {
                Some(cmd) => examples.push((
                    cmd.split(" #").next().unwrap().trim().to_string(),
                    String::new(),
                )),
                None if !line.is_empty() => examples
                    .last_mut()
                    .unwrap()
                    .1
                    .push_str(&format!("{line}\n")),
                None => {}
            }
        }
        for (command, expected) in examples.into_iter().filter(|(_, out)| !out.is_empty()) {
            let dir = tempfile::tempdir().unwrap();
            // From the repository root, as a reader runs them (file paths are relative to it).
            let out = gpu_share(&dir.path().join("ledger"))
                .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
                .args(command.split_whitespace())
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected,
                "README example `gpu-share {command}`"
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} README examples found");
}
