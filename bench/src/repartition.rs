//! Repartition speed on random live states: for every MIG board of the catalogue, seeded random
//! layouts on two GPUs (some instances freed), one or two random asks, through `api::repartition`
//! — the one call the CLI's `repartition` and the npm `repartition` make — timed per state.

use super::speed::SplitMix;
use gpu_share_core::api::{
    repartition, DetectInput, FreeInstance, RepartitionOptions, RepartitionRequest,
};
use gpu_share_core::internals::validate_mig::validate_placements;
use gpu_share_core::internals::{models, FractionalAsk, GpuModel};
use std::time::Instant;

/// Random states per board.
pub const STATES: u64 = 300;

/// One board's totals.
#[derive(Clone, Debug, Default)]
pub struct RepartitionRow {
    pub model: String,
    pub states: u64,
    pub max_ms: f64,
    pub mean_ms: f64,
    pub moved: u64,
    pub unplaced: u64,
}

/// `nvidia-smi mig -lgi` text for instances `(gpu, profile, id, start, size)`.
fn lgi(rows: &[(u64, &str, u32, u8, u8)]) -> String {
    let mut out = String::from(
        "+---------------------------------------------------------+\n\
         | GPU instances:                                          |\n\
         | GPU   Name               Profile  Instance   Placement  |\n\
         |                            ID       ID       Start:Size |\n\
         |=========================================================|\n",
    );
    for (gpu, profile, id, start, size) in rows {
        out.push_str(&format!(
            "| {gpu:>3}  MIG {profile:<16}  19      {id:>3}          {start}:{size}     |\n\
             +---------------------------------------------------------+\n"
        ));
    }
    out
}

/// A random live state of two GPUs of `model` and random asks, from `seed`.
fn state(model: &GpuModel, seed: u64) -> RepartitionRequest {
    let plain: Vec<_> = model.profiles.iter().filter(|p| p.is_plain()).collect();
    let mut rng = SplitMix(seed);
    let mut rows: Vec<(u64, &str, u32, u8, u8)> = Vec::new();
    let mut free = Vec::new();
    for k in 0..12u32 {
        let gpu = rng.next() % 2;
        let p = plain[(rng.next() % plain.len() as u64) as usize];
        let start = p.starts[(rng.next() % p.starts.len() as u64) as usize];
        let mut layout: Vec<(&str, u8)> = rows
            .iter()
            .filter(|r| r.0 == gpu)
            .map(|r| (r.1, r.3))
            .collect();
        layout.push((p.name, start));
        if validate_placements(model, &layout).is_ok_and(|v| v.valid) {
            rows.push((gpu, p.name, 10 + k, start, p.memory_slices));
            if rng.next().is_multiple_of(4) {
                free.push(FreeInstance {
                    node: None,
                    gpu,
                    gpu_instance_id: 10 + k,
                });
            }
        }
    }
    for gpu in 0..2u64 {
        if !rows.iter().any(|r| r.0 == gpu) {
            let p = plain[0];
            rows.push((gpu, p.name, 90 + gpu as u32, p.starts[0], p.memory_slices));
        }
    }
    let asks = (0..1 + rng.next() % 2)
        .map(|i| {
            let p = plain[(rng.next() % plain.len() as u64) as usize];
            FractionalAsk::mig(&format!("a{i}"), p.name).expect("a catalogue profile")
        })
        .collect();
    RepartitionRequest {
        current: vec![DetectInput {
            label: "lgi".into(),
            text: lgi(&rows),
        }],
        asks,
        options: RepartitionOptions {
            gpu_model: Some(model.name.to_string()),
            free,
        },
    }
}

pub fn run() -> Result<Vec<RepartitionRow>, String> {
    let mut out = Vec::new();
    for model in models().iter().filter(|m| m.is_mig_capable()) {
        let mut row = RepartitionRow {
            model: model.name.to_string(),
            ..Default::default()
        };
        let mut total = 0.0;
        for seed in 0..STATES {
            let request = state(model, seed);
            let t = Instant::now();
            let r =
                repartition(&request).map_err(|e| format!("{} seed {seed}: {e}", model.name))?;
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            total += ms;
            row.max_ms = row.max_ms.max(ms);
            row.states += 1;
            row.moved += u64::from(r.moved);
            row.unplaced += r.unplaced.len() as u64;
        }
        row.mean_ms = total / row.states.max(1) as f64;
        eprintln!(
            "bench: repartition {} {} states, max {:.1} ms",
            row.model, row.states, row.max_ms
        );
        out.push(row);
    }
    Ok(out)
}
