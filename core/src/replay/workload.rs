//! The arrivals of one run, as the simulator builds them (docs/hardware-facts.md §12): every pod
//! of the list in an order shuffled by the seed, then copies of pods drawn uniformly with
//! replacement, appended, until the next copy would take the requested GPU-milli past
//! `tune` × capacity; or, when the list already asks more, pods removed at random until it does
//! not.

use super::rng::Rng;
use super::trace::{Pod, Trace};
use crate::error::{Error, ErrorKind, Result};

/// The most arrivals a run may have.
pub const MAX_ARRIVALS: usize = 2_000_000;

/// `tune` in thousandths of the cluster's GPU capacity (1300 for the paper's 130%).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Tune(u32);

/// A ratio (`1.3`) or a percentage (`"130%"`), as [`Tune::parse`] reads it.
#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Tune {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        let text = match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => s,
            serde_json::Value::Number(n) => n.to_string(),
            _ => {
                return Err(D::Error::custom(
                    "must be a number such as 1.3 or text such as \"130%\"",
                ))
            }
        };
        Tune::parse(&text).map_err(|e| D::Error::custom(e.message))
    }
}

impl Tune {
    /// The largest tune: five times the cluster's capacity.
    pub const MAX_PERMILLE: u32 = 5000;
    /// The paper's: 130%.
    pub const PAPER: Tune = Tune(1300);

    /// # Errors
    /// `OutOfRange` outside 0.01–5 (10–5000 thousandths).
    pub fn from_permille(permille: u32) -> Result<Tune> {
        if (10..=Self::MAX_PERMILLE).contains(&permille) {
            Ok(Tune(permille))
        } else {
            Err(Error::new(
                ErrorKind::OutOfRange,
                format!(
                    "{} is outside 0.01–5 (the share of the cluster's GPU capacity the arrivals ask)",
                    permille as f64 / 1000.0
                ),
            )
            .in_field("tune"))
        }
    }

    /// Reads `1.3` or `130%`, to thousandths.
    ///
    /// # Errors
    /// `Syntax` when it is not a number; `OutOfRange` outside 0.01–5.
    pub fn parse(text: &str) -> Result<Tune> {
        let text = text.trim();
        let (number, scale) = match text.strip_suffix('%') {
            Some(percent) => (percent.trim(), 10.0),
            None => (text, 1000.0),
        };
        let value: f64 = number.parse().map_err(|_| {
            Error::new(
                ErrorKind::Syntax,
                format!("must be a number such as 1.3 or 130%, got {text:?}"),
            )
            .in_field("tune")
        })?;
        let permille = value * scale;
        if !permille.is_finite() || (permille - permille.round()).abs() > 1e-6 {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("{text:?} is finer than a thousandth of the capacity"),
            )
            .in_field("tune"));
        }
        Tune::from_permille(permille.round().clamp(0.0, f64::from(u32::MAX)) as u32)
    }

    pub fn permille(self) -> u32 {
        self.0
    }

    /// The last whole percent of arrived demand a run samples.
    pub fn last_percent(self) -> usize {
        (self.0 / 10) as usize
    }
}

/// The pods of one run, in arrival order, as indices into the trace's pod list.
///
/// # Errors
/// `TooLarge` when the copies would exceed [`MAX_ARRIVALS`].
pub fn arrivals(trace: &Trace, tune: Tune, seed: u64) -> Result<Vec<u32>> {
    let pods = &trace.pods;
    let mut by_name: Vec<u32> = (0..pods.len() as u32).collect();
    crate::sort::sort_by(&mut by_name, |&a, &b| {
        pods[a as usize].name.cmp(&pods[b as usize].name)
    });
    let mut rng = Rng::new(seed);
    let mut order = by_name.clone();
    rng.shuffle(&mut order);
    let milli = |i: u32| pods[i as usize].gpu.milli();
    let target = u128::from(trace.capacity_milli()) * u128::from(tune.permille());
    let mut demand: u64 = order.iter().map(|&i| milli(i)).sum();
    let asks_gpu = pods.iter().any(|p| p.gpu.milli() > 0);
    if u128::from(demand) * 1000 < target && asks_gpu {
        loop {
            let copy = by_name[rng.below(by_name.len() as u64) as usize];
            if u128::from(demand + milli(copy)) * 1000 > target {
                break;
            }
            if order.len() == MAX_ARRIVALS {
                return Err(Error::new(
                    ErrorKind::TooLarge,
                    format!("the tune asks more than {MAX_ARRIVALS} arrivals of this pod list"),
                )
                .in_field("tune"));
            }
            demand += milli(copy);
            order.push(copy);
        }
    } else if u128::from(demand) * 1000 > target {
        let mut removed = vec![false; order.len()];
        while u128::from(demand) * 1000 > target {
            let at = rng.below(order.len() as u64) as usize;
            if !removed[at] {
                removed[at] = true;
                demand -= milli(order[at]);
            }
        }
        let mut at = 0;
        order.retain(|_| {
            at += 1;
            !removed[at - 1]
        });
    }
    Ok(order)
}

/// Each pod numbered by what a policy's score of a node depends on: the scores of a node for two
/// pods of one shape are the same, so they are cached per shape.
pub struct Shapes {
    ids: Vec<u32>,
    count: usize,
}

impl Shapes {
    /// By CPU and GPU ask: FGD's score of a node depends on nothing else (its typical pods ask no
    /// memory), and fewer shapes share more of the cache.
    pub fn of(trace: &Trace) -> Shapes {
        Shapes::keyed(trace, |_| 0)
    }

    /// By CPU, memory and GPU ask: gpu-share's policy counts memory.
    pub fn with_memory(trace: &Trace) -> Shapes {
        Shapes::keyed(trace, |p| p.memory_mib)
    }

    fn keyed(trace: &Trace, memory: impl Fn(&Pod) -> u64) -> Shapes {
        let mut seen = std::collections::HashMap::new();
        let ids = trace
            .pods
            .iter()
            .map(|p| {
                let next = seen.len() as u32;
                *seen.entry((p.cpu_milli, memory(p), p.gpu)).or_insert(next)
            })
            .collect();
        Shapes {
            ids,
            count: seen.len(),
        }
    }

    /// The shape of pod `i` of the trace's list.
    pub fn of_pod(&self, i: u32) -> usize {
        self.ids[i as usize] as usize
    }

    pub fn count(&self) -> usize {
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tune_reads_a_ratio_or_a_percent() {
        assert_eq!(Tune::parse("1.3").unwrap(), Tune::PAPER);
        assert_eq!(Tune::parse("130%").unwrap(), Tune::PAPER);
        assert_eq!(Tune::parse(" 1 ").unwrap().last_percent(), 100);
        for bad in ["", "x", "0", "6", "1.0005", "-1", "NaN", "inf"] {
            assert!(Tune::parse(bad).is_err(), "{bad}");
        }
    }
}
