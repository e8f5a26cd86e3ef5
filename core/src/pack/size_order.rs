//! Items largest first, equal sizes in input order, sorted a bucket of sizes at a time so that a
//! million items are sorted where they sit in the processor's cache.
//!
//! Sorting all of a million keys before packing them (three radix passes over 8 MB, the packing
//! loop over them again, then each item's bin written at its input position, at random) made each
//! pass slower per key than at 100,000 keys, whose 800 KB stay in the second-level cache:
//! first-fit-decreasing grew over eleven times from 100,000 to a million asks (BENCHMARKS.md,
//! growth). Here one pass spreads the items into a few hundred buckets of consecutive sizes;
//! each bucket is then sorted and handed to the caller while it is in the cache; and what the
//! caller wrote for each item is read back in input order through the same buckets, in order
//! within each: no array with an entry per item is written or read at random.
//!
//! A key is a `u32`: the item's size below its bucket's largest, above its input index
//! ([`Low::Index`]) or its rank in the bucket ([`Low::Rank`]), which is the same order.

/// What a key holds below the item's size.
#[derive(Clone, Copy)]
pub(super) enum Low {
    /// The item's input index: each sorted bucket tells which items it holds.
    Index,
    /// The item's rank among the bucket's items in input order: fewer bits than the index, and
    /// the place in the bucket where the caller writes the item's value
    /// ([`Buckets::in_input_order`]).
    Rank,
}

/// Items spread into buckets of consecutive sizes, largest sizes first, each bucket in input
/// order until [`Buckets::sort_each`].
pub(super) struct Buckets {
    keys: Vec<u32>,
    /// Bucket `b` is `keys[starts[b]..starts[b + 1]]`.
    starts: Vec<usize>,
    /// The largest size.
    max: u64,
    /// A size's bucket is `(max - size) >> shift`; the bits below go into its key.
    shift: u32,
    /// The bits of a key below the size: its index or rank.
    low_bits: u32,
    /// How many items the fullest bucket holds.
    largest: usize,
}

/// Buckets aimed at for many items: 256, so that sizes up to 10⁶ (20 bits) come in buckets of
/// 4,096 sizes. Fewer items get fewer buckets, about one per [`PER_BUCKET`] items: the buckets'
/// bookkeeping took ten items twice as long to pack.
const BUCKET_BITS: u32 = 8;
const PER_BUCKET: usize = 16;

impl Buckets {
    /// `None` where an index, or a key, would not fit in 32 bits (2³² items or more, or sizes
    /// spread too widely for the indices or ranks beside them), for the caller to sort another
    /// way.
    pub(super) fn new(sizes: &[u64], low: Low) -> Option<Buckets> {
        // Indices, and so values such as bins (one per item at most), fit in a `u32`.
        u32::try_from(sizes.len()).ok()?;
        let (min, max) = sizes
            .iter()
            .fold((u64::MAX, 0), |(lo, hi), &s| (lo.min(s), hi.max(s)));
        let span_bits = bits(max.saturating_sub(min));
        let bucket_bits = BUCKET_BITS.min(bits((sizes.len() / PER_BUCKET) as u64));
        let shift = span_bits.saturating_sub(bucket_bits);
        let bucket = |s: u64| ((max - s) >> shift) as usize;
        // Counted one place up: the running sums are then where each bucket begins.
        let mut starts = vec![0usize; (1 << (span_bits - shift)) + 1];
        for &s in sizes {
            starts[bucket(s) + 1] += 1;
        }
        let largest = starts.iter().copied().max().unwrap_or(0);
        for b in 1..starts.len() {
            starts[b] += starts[b - 1];
        }
        let low_bits = match low {
            Low::Index => bits(sizes.len().saturating_sub(1) as u64),
            Low::Rank => bits(largest.saturating_sub(1) as u64),
        };
        if shift + low_bits > u32::BITS {
            return None;
        }
        let size_mask = (1u64 << shift) - 1;
        let mut next = starts.clone();
        let mut keys = vec![0u32; sizes.len()];
        for (i, &s) in sizes.iter().enumerate() {
            let b = bucket(s);
            let low = match low {
                Low::Index => i,
                Low::Rank => next[b] - starts[b],
            };
            // Below 2³², as checked above.
            keys[next[b]] = (((max - s) & size_mask) << low_bits | low as u64) as u32;
            next[b] += 1;
        }
        Some(Buckets {
            keys,
            starts,
            max,
            shift,
            low_bits,
            largest,
        })
    }

    /// Sorts each bucket, largest sizes first, and hands it to `each`.
    pub(super) fn sort_each(&mut self, mut each: impl FnMut(Bucket<'_>)) {
        let mut spare = vec![0; self.largest];
        for b in 0..self.starts.len() - 1 {
            let keys = &mut self.keys[self.starts[b]..self.starts[b + 1]];
            if keys.is_empty() {
                // (Then `b << shift` may be more than `max`.)
                continue;
            }
            sort_by_size(keys, self.low_bits, self.shift, &mut spare);
            each(Bucket {
                keys,
                top: self.max - ((b as u64) << self.shift),
                low_bits: self.low_bits,
            });
        }
    }

    /// With [`Low::Rank`], after each bucket's keys were replaced by values at the items' ranks
    /// ([`Bucket::slots`]): each item's value, in input order. `sizes` are those the buckets were
    /// made of.
    pub(super) fn in_input_order(&self, sizes: &[u64]) -> Vec<usize> {
        let mut next = self.starts.clone();
        sizes
            .iter()
            .map(|&s| {
                let slot = &mut next[((self.max - s) >> self.shift) as usize];
                *slot += 1;
                self.keys[*slot - 1] as usize
            })
            .collect()
    }
}

/// One bucket's keys, sorted: largest size first, equal sizes in input order.
pub(super) struct Bucket<'a> {
    keys: &'a mut [u32],
    /// The size of an item whose key's size part is 0: the largest this bucket may hold.
    top: u64,
    low_bits: u32,
}

impl<'a> Bucket<'a> {
    /// `(size, index or rank)` of each item, in order.
    pub(super) fn items(&self) -> impl Iterator<Item = (u64, usize)> + '_ {
        let mask = ((1u64 << self.low_bits) - 1) as u32;
        self.keys.iter().map(move |&k| {
            let below_top = u64::from(k) >> self.low_bits;
            (self.top - below_top, (k & mask) as usize)
        })
    }

    /// The bucket's place, for a value at each item's rank (see [`Buckets::in_input_order`]).
    pub(super) fn slots(self) -> &'a mut [u32] {
        self.keys
    }
}

/// Buckets of up to this many items are sorted by comparison.
const SMALL: usize = 256;

/// Sorts one bucket's keys by their size part (`bits` bits above `low_bits`), stably, through
/// `spare` (at least as long). Keys come in input order and are distinct, so sorted they are
/// largest first, equal sizes in input order. Few keys are sorted by comparison; more by a
/// least-significant-digit radix sort, a byte a pass, skipping a byte every key shares.
fn sort_by_size(keys: &mut [u32], low_bits: u32, bits: u32, spare: &mut [u32]) {
    if keys.len() <= SMALL {
        keys.sort_unstable();
        return;
    }
    let passes = bits.div_ceil(8) as usize;
    let digit =
        |k: u32, pass: usize| (u64::from(k) >> (low_bits as usize + 8 * pass)) as usize & 0xff;
    let mut counts = [[0usize; 256]; 4];
    for &k in keys.iter() {
        for (pass, count) in counts[..passes].iter_mut().enumerate() {
            count[digit(k, pass)] += 1;
        }
    }
    let len = keys.len();
    let (mut from, mut to) = (keys, &mut spare[..len]);
    let mut in_spare = false;
    for (pass, count) in counts[..passes].iter().enumerate() {
        if count.contains(&len) {
            continue;
        }
        let mut next = [0usize; 256];
        let mut start = 0;
        for (n, c) in next.iter_mut().zip(count) {
            *n = start;
            start += c;
        }
        for &k in from.iter() {
            let d = digit(k, pass);
            to[next[d]] = k;
            next[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
        in_spare = !in_spare;
    }
    if in_spare {
        to.copy_from_slice(from);
    }
}

/// How many bits `x` takes.
fn bits(x: u64) -> u32 {
    u64::BITS - x.leading_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The stable sort of the indices by decreasing size: what the buckets must give.
    fn stable(sizes: &[u64]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..sizes.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
        order
    }

    /// Sizes above `base`, most within `2^narrow` of it and the rest within `2^wide`: one bucket,
    /// buckets of one size, crowded buckets whose sizes differ in one to four bytes (the radix
    /// sort's passes), and spans too wide for 32 bits.
    fn sizes() -> impl Strategy<Value = Vec<u64>> {
        let bits = || {
            prop_oneof![
                0u32..=2,
                Just(8),
                Just(12),
                Just(20),
                Just(28),
                Just(36),
                Just(62)
            ]
        };
        (
            prop_oneof![Just(0u64), Just(1), Just(1 << 40), Just(u64::MAX >> 1)],
            bits(),
            bits(),
            0usize..1500,
            any::<u64>(),
        )
            .prop_map(|(base, narrow, wide, len, seed)| {
                let mut x = seed;
                (0..len)
                    .map(|_| {
                        x = x
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        let span = if x >> 60 == 0 { wide } else { narrow.min(wide) };
                        base + ((x >> 1) & ((1u64 << span) - 1))
                    })
                    .collect()
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Keyed by index, the sorted buckets list the items in the stable order; keyed by rank,
        /// values written at the items' ranks come back in input order.
        #[test]
        fn buckets_sort_stably_and_read_back_in_input_order(sizes in sizes()) {
            let order = stable(&sizes);
            if let Some(mut buckets) = Buckets::new(&sizes, Low::Index) {
                let mut listed = Vec::new();
                buckets.sort_each(|bucket| listed.extend(bucket.items()));
                let expected: Vec<(u64, usize)> = order.iter().map(|&i| (sizes[i], i)).collect();
                prop_assert_eq!(listed, expected);
            }
            if let Some(mut buckets) = Buckets::new(&sizes, Low::Rank) {
                // Each item's value: its place in the stable order.
                let mut place = 0u32;
                let mut sizes_in_order = Vec::new();
                buckets.sort_each(|bucket| {
                    let items: Vec<(u64, usize)> = bucket.items().collect();
                    let slots = bucket.slots();
                    for (size, rank) in items {
                        sizes_in_order.push(size);
                        slots[rank] = place;
                        place += 1;
                    }
                });
                let mut expected = vec![0usize; sizes.len()];
                for (k, &i) in order.iter().enumerate() {
                    expected[i] = k;
                }
                prop_assert_eq!(buckets.in_input_order(&sizes), expected);
                prop_assert_eq!(sizes_in_order, order.iter().map(|&i| sizes[i]).collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn keys_too_wide_for_32_bits_are_left_to_the_caller() {
        // Sizes over 2^40: 32 bits of size within 256 buckets, none left for an index.
        let wide: Vec<u64> = (0..1000u64).map(|i| i << 30).collect();
        assert!(Buckets::new(&wide, Low::Index).is_none());
        assert!(Buckets::new(&wide, Low::Rank).is_none());
        // Over 2^24 with 1,000 items: 16 bits of size, 10 of index.
        let narrow: Vec<u64> = (0..1000u64).map(|i| i << 14).collect();
        assert!(Buckets::new(&narrow, Low::Index).is_some());
        assert!(Buckets::new(&[], Low::Rank).is_some());
    }
}
