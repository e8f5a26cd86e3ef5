//! The smallest `gpu_memory_utilization`, in hundredths, at which vLLM starts and its KV cache
//! holds `sequences` sequences of `max_model_len` tokens at once (blocks ≥ sequences × blocks per
//! sequence). The KV cache grows with the utilisation, so the first hundredth that serves is the
//! smallest; one hundredth less serves fewer or does not start (checked in `tests.rs`).
//!
//! Sequences beyond vLLM's default `max_num_seqs` need it raised, which also changes the profile
//! run (more sampled rows): the search then plans with `--max-num-seqs` set to them.
//!
//! [`plan_engine`], the module's entry, is here too: at the utilisation given, or this search.

use super::plan::{out_of_range, prepare};
use super::{Engine, EngineDetail, EngineRequest, EngineTarget, Utilization};
use crate::error::{Error, ErrorKind, Result};
use crate::size::MAX_CONCURRENCY;

/// Plans `r` at the smallest utilisation that serves `sequences`; when none up to 1 does, the
/// plan at the largest that starts (or 1), with `starts: false` and the reason.
///
/// # Errors
/// As [`super::plan::prepare`]; `sequences` out of range (field `concurrency`).
pub fn smallest_utilization(r: &EngineRequest, sequences: u64) -> Result<EngineDetail> {
    if !(1..=MAX_CONCURRENCY).contains(&sequences) {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!("must be from 1 to {MAX_CONCURRENCY}, got {sequences}"),
        )
        .in_field("concurrency"));
    }
    let mut request = r.clone();
    let first = prepare(&request)?;
    if request.max_num_seqs.is_none() && sequences > first.batch.seqs {
        request.max_num_seqs = Some(sequences);
    }
    let prepared = prepare(&request)?;
    let mut last_start: Option<EngineDetail> = None;
    for h in 1..=100 {
        let mut d = prepared.at(Utilization::hundredths(h));
        if !d.engine.starts {
            continue;
        }
        if d.kv_blocks >= sequences.saturating_mul(d.blocks_per_request) {
            let below = match &last_start {
                Some(b) => format!(
                    "at {} it holds {}",
                    b.utilization.text(),
                    b.engine.max_concurrency
                ),
                None => "no smaller one starts".to_string(),
            };
            d.engine.why.push(format!(
                "{} is the smallest utilisation (in hundredths) whose KV cache holds {sequences} sequences of {} tokens; {below}.",
                d.utilization.text(),
                prepared.max_model_len
            ));
            return Ok(d);
        }
        last_start = Some(d);
    }
    let mut d = last_start.unwrap_or_else(|| prepared.at(Utilization::MAX));
    let reason = if d.engine.starts {
        format!("No utilisation up to 1 serves {sequences} sequences of {} tokens: at {} (the most that starts) the KV cache holds {}.", prepared.max_model_len, d.utilization.text(), d.engine.max_concurrency)
    } else {
        format!(
            "No utilisation up to 1 starts vLLM with sequences of {} tokens.",
            prepared.max_model_len
        )
    };
    d.engine.starts = false;
    d.engine.why.push(reason);
    Ok(d)
}

/// Plans `r`: at its utilisation, or the smallest one that serves its concurrency.
///
/// # Errors
/// As [`prepare`]; a utilisation of 0 or above 1 (field `gpu_memory_utilization`).
pub fn plan_engine(r: &EngineRequest) -> Result<Engine> {
    match r.target {
        EngineTarget::Utilization(u) => {
            if u.0 == 0 || u > Utilization::MAX {
                return Err(out_of_range(
                    "gpu_memory_utilization",
                    "must be above 0 and at most 1".into(),
                ));
            }
            Ok(prepare(r)?.at(u).engine)
        }
        EngineTarget::Concurrency { sequences } => {
            smallest_utilization(r, sequences).map(|d| d.engine)
        }
    }
}
