//! Backwards: the longest context, or the most sequences, whose total stays within a memory
//! budget — the largest whole number that fits, found by bisection over the exact total (the KV
//! cache grows with both, and rounds up to whole bytes).

use super::text::bytes_text;
use super::{
    concurrency, context, fixed, kv, ModelConfig, SizeOptions, MAX_CONCURRENCY, MAX_CONTEXT,
};
use crate::error::{Error, ErrorKind, Result};

/// The longest context (tokens per sequence) with `options.concurrency` sequences (default 1)
/// whose total is at most `budget_bytes`, no longer than the model's `max_position_embeddings`
/// (or [`MAX_CONTEXT`]); 0 when not one token fits beside the weights.
///
/// # Errors
/// `OutOfRange` when the weights and overheads alone exceed the budget; as [`super::size`] for
/// bad options.
pub fn max_context(c: &ModelConfig, options: &SizeOptions, budget_bytes: u64) -> Result<u64> {
    let sequences = u128::from(concurrency(options.concurrency)?);
    let cap = c
        .max_position_embeddings
        .map_or(MAX_CONTEXT, |n| n.min(MAX_CONTEXT));
    largest(c, options, budget_bytes, cap, |n| u128::from(n) * sequences)
}

/// The most sequences of `options.context` tokens (default: the model's
/// `max_position_embeddings`) whose total is at most `budget_bytes`, at most
/// [`MAX_CONCURRENCY`]; 0 when not one fits beside the weights.
///
/// # Errors
/// As [`max_context`]; a context with no default (field `context`).
pub fn max_concurrency(c: &ModelConfig, options: &SizeOptions, budget_bytes: u64) -> Result<u64> {
    let tokens = u128::from(context(c, options.context)?);
    largest(c, options, budget_bytes, MAX_CONCURRENCY, |n| {
        u128::from(n) * tokens
    })
}

/// The largest `n` in `0..=cap` whose total with `tokens(n)` tokens in all is within the budget.
fn largest(
    c: &ModelConfig,
    options: &SizeOptions,
    budget: u64,
    cap: u64,
    tokens: impl Fn(u64) -> u128,
) -> Result<u64> {
    let fixed = fixed(c, options)?;
    let budget = u128::from(budget);
    if fixed.bytes > budget {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!(
                "the weights and overheads alone need {}, more than the budget of {}",
                bytes_text(fixed.bytes.try_into().unwrap_or(u64::MAX)),
                bytes_text(budget.try_into().unwrap_or(u64::MAX))
            ),
        ));
    }
    let fits = |n: u64| fixed.bytes + kv::bytes(c, fixed.precision.kv, tokens(n)) <= budget;
    let (mut lo, mut hi) = (0, cap);
    if fits(hi) {
        return Ok(hi);
    }
    // fits(lo) and not fits(hi).
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if fits(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}
