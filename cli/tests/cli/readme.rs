//! The docs stay true: the `console` examples of README.md and of every `docs/*.md` page are run and
//! compared, so no page shows output the CLI does not print; and every relative link in those pages
//! resolves, to a file and, where it names one, to a heading of that file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::common::gpu_share;

/// The examples README.md held before its reference moved to docs/ (17), and its first screen's.
const EXAMPLES_AT_LEAST: usize = 18;

/// The repository root: examples run from it, as a reader runs them (file paths are relative to it).
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// README.md, then every Markdown page in docs/, in name order.
fn doc_files() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    pages.sort();
    pages.insert(0, repo().join("README.md"));
    pages
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The examples of a page's `console` blocks, as (command after `gpu-share`, expected stdout). Each
/// `$ gpu-share …` line starts an example (a ` #` ends the command: a comment); the lines up to the
/// next one are its output. An example without output is shown, not run.
fn console_examples(page: &str) -> Vec<(String, String)> {
    let mut examples: Vec<(String, String)> = Vec::new();
    for block in page.split("```console\n").skip(1) {
        let block = block.split("```").next().unwrap();
        let start = examples.len();
        for line in block.lines() {
            match line.strip_prefix("$ gpu-share ") {
                Some(cmd) => examples.push((
                    cmd.split(" #").next().unwrap().trim().to_string(),
                    String::new(),
                )),
                None if !line.is_empty() => {
                    assert!(examples.len() > start, "output before a command: {line}");
                    examples
                        .last_mut()
                        .unwrap()
                        .1
                        .push_str(&format!("{line}\n"));
                }
                None => {}
            }
        }
    }
    examples.retain(|(_, out)| !out.is_empty());
    examples
}

#[test]
fn docs_console_examples_match_the_cli() {
    let mut checked = 0;
    for file in doc_files() {
        for (command, expected) in console_examples(&read(&file)) {
            let dir = tempfile::tempdir().unwrap();
            let out = gpu_share(&dir.path().join("ledger"))
                .current_dir(repo())
                .args(command.split_whitespace())
                .output()
                .unwrap();
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                expected,
                "{}: example `gpu-share {command}`",
                file.display()
            );
            checked += 1;
        }
    }
    eprintln!("{checked} examples of README.md and docs/ run");
    assert!(
        checked >= EXAMPLES_AT_LEAST,
        "only {checked} examples found in README.md and docs/"
    );
}

/// The lines of a page outside its fenced code blocks, with their numbers (from 1).
fn prose_lines(page: &str) -> Vec<(usize, &str)> {
    let mut in_fence = false;
    let mut prose = Vec::new();
    for (index, line) in page.lines().enumerate() {
        if line.starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence {
            prose.push((index + 1, line));
        }
    }
    prose
}

/// The targets of a page's Markdown links `[text](target)` that lead inside the repository (no
/// scheme such as `https:`), with their line numbers.
fn relative_links(page: &str) -> Vec<(usize, &str)> {
    let mut links = Vec::new();
    for (number, line) in prose_lines(page) {
        for (at, _) in line.match_indices("](") {
            let rest = &line[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            let has_scheme = target.split_once(':').is_some_and(|(scheme, _)| {
                !scheme.is_empty() && scheme.chars().all(|c| c.is_ascii_alphabetic())
            });
            if !target.is_empty() && !has_scheme && !target.contains(char::is_whitespace) {
                links.push((number, target));
            }
        }
    }
    links
}

/// The anchors GitHub gives a page's headings: the heading's text lower-cased, without the
/// characters other than letters, digits, `-`, `_` and spaces, spaces as `-`; a repeated one gets
/// `-1`, `-2`, ….
fn heading_anchors(page: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut anchors = Vec::new();
    for (_, line) in prose_lines(page) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        let Some(title) = line[hashes..]
            .strip_prefix(' ')
            .filter(|_| (1..=6).contains(&hashes))
        else {
            continue;
        };
        let slug: String = title
            .trim()
            .to_lowercase()
            .chars()
            .filter(|&c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let repeats = seen.entry(slug.clone()).or_insert(0);
        anchors.push(match *repeats {
            0 => slug,
            n => format!("{slug}-{n}"),
        });
        *repeats += 1;
    }
    anchors
}

/// Why a link of `page` to `target` does not resolve, if it does not.
fn broken_link(page: &Path, target: &str) -> Option<String> {
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let resolved = match path {
        "" => page.to_path_buf(),
        path => page.parent().unwrap().join(path),
    };
    if !resolved.exists() {
        return Some(format!("no file {}", resolved.display()));
    }
    let is_markdown = resolved.extension().is_some_and(|ext| ext == "md");
    if anchor.is_empty() || !is_markdown {
        return None;
    }
    let found = heading_anchors(&read(&resolved))
        .iter()
        .any(|a| a == anchor);
    (!found).then(|| format!("no heading #{anchor} in {}", resolved.display()))
}

#[test]
fn relative_links_of_readme_and_docs_resolve() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let page = read(&file);
        for (line, target) in relative_links(&page) {
            checked += 1;
            if let Some(why) = broken_link(&file, target) {
                broken.push(format!("{}:{line}: ({target}) {why}", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    // The pages hold dozens: a scanner that finds few has stopped seeing links.
    assert!(checked >= 20, "only {checked} relative links found");
}

#[test]
fn the_link_check_sees_what_github_sees() {
    let page = "# Size\n```\n# not a heading\n```\n## Size\n### 13. Kubernetes DRA (`v1`)\n\
                [a](b.md#c) [x](https://h/) <http://h/> [y](#size-1) `](not a link` [z](c d)\n";
    assert_eq!(
        heading_anchors(page),
        ["size", "size-1", "13-kubernetes-dra-v1"]
    );
    assert_eq!(relative_links(page), [(7, "b.md#c"), (7, "#size-1")]);
}
