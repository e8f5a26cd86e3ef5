//! Long tables a page of rows at a time. A table of thousands of rows made every edit re-lay out
//! tens of thousands of DOM nodes (1.6 s per edit at 1,000 asks, most of it layout: BENCHMARKS.md,
//! the page); a page of [`PAGE_ROWS`] keeps an edit's work the same at any size.

use std::ops::Range;

use leptos::prelude::*;

/// The rows a table shows at once.
pub const PAGE_ROWS: usize = 100;

/// The last page of `total` rows (0 when there are none).
pub fn last_page(total: usize) -> usize {
    total.saturating_sub(1) / PAGE_ROWS
}

/// The rows page `page` shows of `total`; a page past the end shows the last one (rows were removed).
pub fn window(page: usize, total: usize) -> Range<usize> {
    let start = page.min(last_page(total)) * PAGE_ROWS;
    start..(start + PAGE_ROWS).min(total)
}

/// "Previous", where the rows are, and "Next" — only when there is more than one page.
#[component]
pub fn Pager(
    /// How many rows the table has.
    #[prop(into)]
    total: Signal<usize>,
    page: RwSignal<usize>,
    /// What the rows are, for the words and the buttons' names ("Asks", "Plan rows").
    what: &'static str,
) -> impl IntoView {
    let shown = move || window(page.get(), total.get());
    let at = move || page.get().min(last_page(total.get()));
    let previous = move |_| page.set(at().saturating_sub(1));
    let next = move |_| page.set((at() + 1).min(last_page(total.get())));
    move || {
        (total.get() > PAGE_ROWS).then(|| {
            view! {
                <nav class="pager" aria-label=format!("{what}, pages")>
                    <button type="button" class="small" on:click=previous disabled=move || at() == 0
                        aria-label=format!("Previous {what}")>"Previous"</button>
                    <span role="status">{move || {
                        let r = shown();
                        format!("{what} {}–{} of {}", r.start + 1, r.end, total.get())
                    }}</span>
                    <button type="button" class="small" on:click=next disabled=move || at() == last_page(total.get())
                        aria-label=format!("Next {what}")>"Next"</button>
                </nav>
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_every_row_once() {
        for total in [0, 1, 99, 100, 101, 250, 1000] {
            let mut seen = Vec::new();
            for page in 0..=last_page(total) {
                seen.extend(window(page, total));
            }
            assert_eq!(seen, (0..total).collect::<Vec<_>>(), "{total} rows");
        }
    }

    #[test]
    fn a_page_past_the_end_shows_the_last() {
        assert_eq!(window(7, 250), 200..250);
        assert_eq!(window(3, 0), 0..0);
        assert_eq!(last_page(100), 0);
        assert_eq!(last_page(101), 1);
    }
}
