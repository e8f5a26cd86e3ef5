//! The page's shell: its header and an empty workspace as static HTML inside `index.html`, so a
//! slow connection shows the page's layout and text (greyed, inert) at once instead of a blank
//! page while the WebAssembly loads; `start` removes it before mounting the app. An embed's link
//! shows the embed's view instead ([`EMBED`]). Both are made by rendering the page's own
//! components natively for an empty scenario, and a test keeps `index.html`'s copies the same as
//! what they render (`shell_in_index_html_is_current`).

use crate::app::{Embed, Top, Workspace};
use crate::state::AppState;
use leptos::prelude::*;

/// Where the page's shell starts and ends in `index.html`.
pub const PAGE: Part = Part {
    start:
        "<!-- shell: made by web/src/shell.rs; `cargo test -p gpu-share-web shell` rewrites it -->",
    end: "<!-- /shell -->",
};

/// Where the embed's shell starts and ends: in a `<template>` that a script in `index.html` puts
/// in place of the page's shell for an `&embed` link, so an embed shows its own layout at once.
pub const EMBED: Part = Part {
    start: "<!-- shell-embed: made by web/src/shell.rs; `cargo test -p gpu-share-web shell` rewrites it -->",
    end: "<!-- /shell-embed -->",
};

/// The markers around a generated part of `index.html`.
pub struct Part {
    pub start: &'static str,
    pub end: &'static str,
}

/// The header and the workspace of an empty scenario, as HTML. Test ids are left out: the shell
/// is not the page, and a test (or a script) looking for one must find the app's.
pub fn html() -> String {
    render(|| {
        view! {
            <Top />
            <main class="full">
                <Workspace />
            </main>
        }
        .into_any()
    })
}

/// The embed's view of an empty scenario (its link to the planner blank), as [`html`].
pub fn embed_html() -> String {
    render(|| view! { <Embed planner=Signal::derive(String::new) /> }.into_any())
}

/// `view`, built for an empty scenario and written as HTML without test ids.
fn render(view: impl FnOnce() -> AnyView) -> String {
    // Rendering builds effects, which Leptos hands to an executor; a shell runs none of them.
    struct Discard;
    impl any_spawner::CustomExecutor for Discard {
        fn spawn(&self, _: any_spawner::PinnedFuture<()>) {}
        fn spawn_local(&self, _: any_spawner::PinnedLocalFuture<()>) {}
        fn poll_local(&self) {}
    }
    // Already set (a second call in one process) is as good.
    let _ = any_spawner::Executor::init_custom_executor(Discard);
    let owner = Owner::new();
    let html = owner.with(|| {
        let state = AppState::new("");
        state.clear();
        state.provide();
        view().to_html()
    });
    without_test_ids(&html)
}

/// `html` without its ` data-testid="…"` attributes.
fn without_test_ids(html: &str) -> String {
    const ATTRIBUTE: &str = " data-testid=\"";
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find(ATTRIBUTE) {
        out.push_str(&rest[..at]);
        let value = &rest[at + ATTRIBUTE.len()..];
        rest = value.find('"').map_or("", |end| &value[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// `index` with the text between `part`'s markers replaced by `html`, or `None` without both
/// markers.
pub fn with_part(index: &str, part: &Part, html: &str) -> Option<String> {
    let start = index.find(part.start)? + part.start.len();
    let end = start + index[start..].find(part.end)?;
    Some(format!("{}{html}{}", &index[..start], &index[end..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As rust-analyzer's generated files: when the components change, this test writes the new
    /// shell into `index.html` and fails, so the change is seen and committed.
    #[test]
    fn shell_in_index_html_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../index.html");
        let index = std::fs::read_to_string(path).expect("index.html");
        let current = with_part(&index, &PAGE, &html())
            .and_then(|index| with_part(&index, &EMBED, &embed_html()))
            .expect("index.html has both shells' markers");
        if current != index {
            std::fs::write(path, &current).expect("index.html is writable");
            panic!("index.html's shell was out of date with the components; rewritten, commit it");
        }
    }

    #[test]
    fn the_shell_has_the_pages_text_and_no_test_ids() {
        let shell = html();
        assert!(shell.contains("<h1>gpu-share planner</h1>"));
        assert!(shell.contains("A fraction is a decimal (0.25)"));
        assert!(!shell.contains("data-testid"));
        assert!(!shell.contains("<script"));
        let embed = embed_html();
        assert!(embed.starts_with(r#"<main class="embed">"#), "{embed}");
        assert!(embed.contains("<h1>GPU sharing plan</h1>"));
        assert!(!embed.contains("data-testid"));
    }

    #[test]
    fn test_ids_are_removed_and_nothing_else() {
        assert_eq!(
            without_test_ids(r#"<p data-testid="a" class="x">t</p><b data-testid="b">u</b>"#),
            r#"<p class="x">t</p><b>u</b>"#
        );
        let (start, end) = (PAGE.start, PAGE.end);
        assert_eq!(with_part("a", &PAGE, "b"), None);
        assert_eq!(
            with_part(&format!("x{start}old{end}y"), &PAGE, "new"),
            Some(format!("x{start}new{end}y"))
        );
    }
}
