//! Packings whose optimum is known by construction: bins cut exactly into items, then shuffled.
//! Shared by the one-dimensional (`unseen`) and the two-dimensional (`memory_quality`) generators.

use super::speed::SplitMix;

/// `total` cut into `parts` positive integers at random (distinct cut points, uniform).
pub fn cut(total: u64, parts: u64, rng: &mut SplitMix) -> Vec<u64> {
    let mut points: Vec<u64> = Vec::new();
    while (points.len() as u64) < parts - 1 {
        let p = 1 + rng.next() % (total - 1);
        if !points.contains(&p) {
            points.push(p);
        }
    }
    points.push(0);
    points.push(total);
    points.sort_unstable();
    points.windows(2).map(|w| w[1] - w[0]).collect()
}

/// A uniform random permutation (Fisher–Yates).
pub fn shuffle<T>(items: &mut [T], rng: &mut SplitMix) {
    for i in (1..items.len()).rev() {
        items.swap(i, (rng.next() % (i as u64 + 1)) as usize);
    }
}

/// A uniform integer in `lo..=hi`.
pub fn between(lo: u64, hi: u64, rng: &mut SplitMix) -> u64 {
    lo + rng.next() % (hi - lo + 1)
}
