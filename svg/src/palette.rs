//! Colours for asks: a categorical, colour-blind-safe palette, assigned so that asks side by side
//! in a lane never share a colour.
//!
//! The palette is Okabe and Ito's (M. Okabe, K. Ito, "Color Universal Design (CUD): How to make
//! figures and presentations that are friendly to colorblind people", 2008,
//! <https://jfly.uni-koeln.de/color/>), without its black, which no label could be read on. Each
//! colour carries the text colour readable on it (WCAG contrast ≥ 4.5 : 1): near-black on six,
//! white on the blue. The fills do not change with the colour scheme, so labels stay readable in
//! light and dark.
//!
//! Assignment is greedy colouring of the graph whose edges join asks that are neighbours in some
//! lane, asks taken in order of first appearance: each takes the first colour, counting on from
//! its own position in that order (so colours spread over the palette), that none of its coloured
//! neighbours has. Greedy colouring needs at most the graph's maximal degree + 1 colours; in a
//! packing an ask has at most two neighbours (a fractional ask is on one GPU, a whole ask alone
//! on each of its GPUs), so seven colours always suffice. An ask keeps one colour on every GPU.

use std::collections::{BTreeMap, BTreeSet};

/// `(fill, text)` of each colour, in Okabe and Ito's order.
pub const PALETTE: [(&str, &str); 7] = [
    ("#E69F00", "#111111"), // orange
    ("#56B4E9", "#111111"), // sky blue
    ("#009E73", "#111111"), // bluish green
    ("#F0E442", "#111111"), // yellow
    ("#0072B2", "#FFFFFF"), // blue
    ("#D55E00", "#111111"), // vermillion
    ("#CC79A7", "#111111"), // reddish purple
];

/// Each ask's colour (an index into a palette of `colours`), and the asks in first-appearance order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Colouring {
    pub order: Vec<String>,
    pub colour: BTreeMap<String, usize>,
}

impl Colouring {
    /// Colours the asks of `lanes` (each lane's asks left to right) with a palette of `colours`
    /// (at least one). When `colours` exceeds the maximal degree of the neighbour graph,
    /// neighbours never share a colour.
    pub fn new<'a>(lanes: impl IntoIterator<Item = Vec<&'a str>>, colours: usize) -> Colouring {
        let colours = colours.max(1);
        let mut order: Vec<&str> = Vec::new();
        let mut neighbours: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for lane in lanes {
            for &ask in &lane {
                if !neighbours.contains_key(ask) {
                    neighbours.insert(ask, BTreeSet::new());
                    order.push(ask);
                }
            }
            for pair in lane.windows(2).filter(|p| p[0] != p[1]) {
                neighbours.entry(pair[0]).or_default().insert(pair[1]);
                neighbours.entry(pair[1]).or_default().insert(pair[0]);
            }
        }
        let mut colour: BTreeMap<String, usize> = BTreeMap::new();
        for (i, ask) in order.iter().enumerate() {
            let taken: BTreeSet<usize> = neighbours[ask]
                .iter()
                .filter_map(|n| colour.get(*n).copied())
                .collect();
            let pick = (0..colours)
                .map(|k| (i + k) % colours)
                .find(|c| !taken.contains(c))
                .unwrap_or(i % colours);
            colour.insert(ask.to_string(), pick);
        }
        Colouring {
            order: order.into_iter().map(str::to_string).collect(),
            colour,
        }
    }

    /// The colour of `ask` (0 for an ask not coloured).
    pub fn of(&self, ask: &str) -> usize {
        self.colour.get(ask).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn names(lanes: &[Vec<u8>]) -> Vec<Vec<String>> {
        lanes
            .iter()
            .map(|l| l.iter().map(|n| format!("a{n}")).collect())
            .collect()
    }

    fn colour(lanes: &[Vec<String>], k: usize) -> Colouring {
        Colouring::new(
            lanes.iter().map(|l| l.iter().map(String::as_str).collect()),
            k,
        )
    }

    fn max_degree(lanes: &[Vec<String>]) -> usize {
        let mut n: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for lane in lanes {
            for p in lane.windows(2).filter(|p| p[0] != p[1]) {
                n.entry(&p[0]).or_default().insert(&p[1]);
                n.entry(&p[1]).or_default().insert(&p[0]);
            }
        }
        n.values().map(BTreeSet::len).max().unwrap_or(0)
    }

    #[test]
    fn neighbours_differ_and_order_is_first_appearance() {
        let lanes = names(&[vec![0, 1, 2], vec![3, 0], vec![4], vec![4]]);
        let c = colour(&lanes, 7);
        assert_eq!(c.order, ["a0", "a1", "a2", "a3", "a4"]);
        assert_ne!(c.of("a0"), c.of("a1"));
        assert_ne!(c.of("a1"), c.of("a2"));
        assert_ne!(c.of("a3"), c.of("a0"));
        // Colours spread: the first five asks take five colours.
        let used: BTreeSet<usize> = c.colour.values().copied().collect();
        assert_eq!(used.len(), 5);
    }

    #[test]
    fn palette_text_colours_are_hex() {
        for (fill, text) in PALETTE {
            assert!(fill.len() == 7 && text.len() == 7 && fill.starts_with('#'));
        }
    }

    proptest! {
        #[test]
        fn neighbours_never_share_a_colour_when_the_palette_allows(
            lanes in prop::collection::vec(prop::collection::vec(0u8..12, 0..6), 0..10),
            extra in 0usize..4,
        ) {
            let lanes = names(&lanes);
            let k = max_degree(&lanes) + 1 + extra;
            let c = colour(&lanes, k);
            for lane in &lanes {
                for p in lane.windows(2).filter(|p| p[0] != p[1]) {
                    prop_assert_ne!(c.of(&p[0]), c.of(&p[1]), "{:?} with {} colours", lanes, k);
                }
            }
            prop_assert!(c.colour.values().all(|&v| v < k));
            // Deterministic: the same lanes, the same colours.
            prop_assert_eq!(&colour(&lanes, k), &c);
        }

        #[test]
        fn any_palette_size_colours_every_ask(
            lanes in prop::collection::vec(prop::collection::vec(0u8..12, 0..6), 0..10),
            k in 0usize..4,
        ) {
            let lanes = names(&lanes);
            let c = colour(&lanes, k);
            let all: BTreeSet<&String> = lanes.iter().flatten().collect();
            prop_assert_eq!(c.order.len(), all.len());
            prop_assert!(c.colour.values().all(|&v| v < k.max(1)));
        }
    }
}
