//! gpu-share's packing diagram as one standalone SVG document, for the CLI (`pack --svg FILE`),
//! the npm package (`renderSvg`) and the page: a lane per GPU — MIG GPUs as their
//! memory-slice map with every instance at its real start and width, time-sliced and MPS GPUs as
//! stacked shares with the free rest dashed, whole GPUs full — then the unplaced asks with their
//! reasons and a legend.
//!
//! Pure and deterministic: no DOM, I/O, clock or randomness; the same result and options give
//! the same bytes on every platform (integer arithmetic, fixed-point numbers written here). Every
//! name and reason from the input is escaped text, never markup. The document is well-formed
//! XML and accessible: the root is `role="img"` labelled by its `<title>` and `<desc>` (the
//! summary), each lane a group with its `<title>`, each ask's block a focusable `role="img"`
//! with its details in its `<title>`; an embedded style sheet (scoped under the root's class)
//! with a `prefers-color-scheme: dark` block keeps it readable in light and dark.
//!
//! For a page that inlines it: lanes carry `data-gpu`, `data-mechanism` and `data-node`; blocks
//! `data-ask` and `data-gpu` (and `tabindex="0"`, so focus and click events reach them); free
//! room is `class="free"`; unplaced asks and legend entries carry `data-ask`.
//!
//! ```
//! use gpu_share_core::api::{self, ClusterGpuCaps, FractionalAsk, PackRequest};
//! use gpu_share_svg::{render, SvgOptions};
//!
//! let asks = vec![FractionalAsk::parse_spec("a:0.5")?, FractionalAsk::parse_spec("b:0.3")?];
//! let caps = ClusterGpuCaps { supports_timeslicing: true, ..Default::default() };
//! let packed = api::pack(&PackRequest::new(asks, caps))?;
//! let svg = render(&packed.result, &SvgOptions::default());
//! assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
//! assert!(svg.contains("data-ask=\"a\""));
//! # Ok::<(), gpu_share_core::api::Error>(())
//! ```

mod chart;
mod document;
mod draw;
mod geometry;
mod lanes;
#[cfg(feature = "serde")]
mod options_input;
mod palette;
mod style;
mod text;

#[cfg(feature = "serde")]
pub use options_input::SvgOptionsInput;

pub use chart::{render_replay, replay_summary};
pub use document::{summary, valid_id_prefix, MAX_UNPLACED};
pub use palette::PALETTE;
pub use style::ROOT_CLASS;

use gpu_share_core::api::PackResult;

/// The most GPU lanes drawn by default; the rest are counted in one line.
pub const DEFAULT_MAX_GPUS: usize = 500;
/// The default width of the diagram, in pixels.
pub const DEFAULT_WIDTH: u32 = 720;
/// Widths outside `MIN_WIDTH..=MAX_WIDTH` are clamped into it.
pub const MIN_WIDTH: u32 = 320;
pub const MAX_WIDTH: u32 = 10_000;
/// The document's title when none is given.
pub const DEFAULT_TITLE: &str = "GPU packing";
/// The prefix of the document's ids when none (or an invalid one) is given.
pub const DEFAULT_ID_PREFIX: &str = "gpu-share";

/// How to draw the diagram. Plain data; [`Default`] gives the documented defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvgOptions {
    /// The heading and `<title>` (default [`DEFAULT_TITLE`]).
    pub title: Option<String>,
    /// GPU lanes drawn; GPUs beyond are summarised in a final line "… N more GPUs, listed in
    /// the plan" (default [`DEFAULT_MAX_GPUS`]).
    pub max_gpus: usize,
    /// The first GPU drawn, by position in the packing (default 0): a page shows a long packing
    /// a window of lanes at a time; the GPUs before it are counted in one line above the lanes.
    pub first_gpu: usize,
    /// Width in pixels, clamped to [`MIN_WIDTH`]..=[`MAX_WIDTH`] (default [`DEFAULT_WIDTH`]);
    /// the height follows from the content.
    pub width: u32,
    /// The prefix of the ids of the `<title>` and `<desc>` (`gpu-share-title`), so that two
    /// diagrams inlined into one page keep their ids unique: ASCII letters, digits, `-` and `_`,
    /// starting with a letter; anything else gives [`DEFAULT_ID_PREFIX`].
    pub id_prefix: String,
}

impl Default for SvgOptions {
    fn default() -> Self {
        SvgOptions {
            title: None,
            max_gpus: DEFAULT_MAX_GPUS,
            first_gpu: 0,
            width: DEFAULT_WIDTH,
            id_prefix: DEFAULT_ID_PREFIX.to_string(),
        }
    }
}

/// The text of the document's `<style>` element, the same for every diagram: a page that inlines
/// the SVG under a Content-Security-Policy allows exactly this sheet by its hash.
pub fn style_sheet() -> String {
    format!("\n{}", style::sheet())
}

/// The packing diagram of `result` as a standalone SVG document (UTF-8 text ending in a
/// newline, no XML declaration, so that it also reads as inline SVG in HTML). Never panics.
pub fn render(result: &PackResult, options: &SvgOptions) -> String {
    document::document(result, options)
}
