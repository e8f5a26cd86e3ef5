//! The DRA simulation use case: pack a plan, then simulate the Kubernetes DRA allocator's first fit
//! (devices in slice order, no scoring) of its claims on real ResourceSlices — claims written a
//! template per workload, and gpu-share's own (`export dra`) — and report the GPUs each uses, the
//! GPUs left whole and the memory slices stranded, beside gpu-share's own placement
//! (dra-driver-nvidia-gpu#932). The simulation is `crate::export::dra::allocator`'s.

mod text;

use super::discover::{labelled, DetectInput};
use super::pack::{pack, PackOptions, PackRequest, PackResponse};
use super::Cluster;
use crate::discover::resource_slice::{read_resource_slices, ResourceSlices, MAX_DEVICES};
use crate::error::{Error, ErrorKind, Result};
use crate::export::dra::allocator::{compare, PlanVsScheduler, SimulationOptions, SliceOrder};

/// ResourceSlices and a plan to simulate on them: npm `simulateDra(slices, asks, gpuCount, caps,
/// options)`, `gpu-share simulate-dra --slices FILE`. In JSON the packing's fields (`asks`,
/// `gpu_count`, `caps`) sit beside `slices`, and the packing's options (`optimize`,
/// `time_limit_ms`) among the simulation's. Without caps (`caps` absent, or the default caps) the
/// plan is made on the caps the slices themselves show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimulateDraRequest {
    /// `kubectl get resourceslices -o json` (or `-o yaml`): one text, or one per cluster part.
    pub slices: Vec<DetectInput>,
    pub pack: PackRequest,
    pub options: SimulationOptions,
}

/// The plan, and the scheduler's first fit of its claims in each order simulated.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename_all = "camelCase"))]
pub struct SimulateDraResponse {
    /// gpu-share's packing of the asks.
    pub pack: PackResponse,
    /// One comparison per slice order simulated, in the order of `options.order` (both: listed,
    /// then spread).
    pub simulations: Vec<PlanVsScheduler>,
    /// The comparison in sentences, as the front ends print it.
    pub text: String,
}

/// Reads the slices, packs the asks, and simulates both sets of claims in each order.
///
/// # Errors
/// `Syntax` (field `slices`, `slices[i]` for one of many) for text that is not ResourceSlices,
/// or slices without an NVIDIA GPU; `TooLarge` above the readers' limits; invalid DRA options
/// (field `options.dra.…`); the packer's errors.
pub fn simulate_dra(request: &SimulateDraRequest) -> Result<SimulateDraResponse> {
    request
        .options
        .dra
        .resolve()
        .map_err(|e| e.in_field("options"))?;
    let slices = read_all(&request.slices)?;
    let pack_request = with_slice_caps(&request.pack, &request.slices);
    let packed = pack(&pack_request)?;
    let orders = match request.options.order {
        Some(order) => vec![order],
        None => vec![SliceOrder::Listed, SliceOrder::Spread],
    };
    let simulations = orders
        .into_iter()
        .map(|order| compare(&slices, &packed.result, &request.options.dra, order))
        .collect::<Result<Vec<_>>>()?;
    let text = text::render(&packed, &simulations);
    Ok(SimulateDraResponse {
        pack: packed,
        simulations,
        text,
    })
}

/// The pack request, with the slices as its cluster when it gives no caps of its own.
fn with_slice_caps(request: &PackRequest, slices: &[DetectInput]) -> PackRequest {
    let mut request = request.clone();
    if request.cluster == Cluster::default() {
        request.cluster = Cluster::Detected {
            detected: super::Detected {
                inputs: labelled(slices, "slices"),
                turn_on_mig: false,
            },
        };
    }
    request
}

/// Every text's slices, in order, as one list; an error names the text (`slices`, `slices[1]`).
fn read_all(inputs: &[DetectInput]) -> Result<ResourceSlices> {
    if inputs.is_empty() {
        return Err(Error::new(
            ErrorKind::Syntax,
            "no ResourceSlices given: pass `kubectl get resourceslices -o json`",
        )
        .in_field("slices"));
    }
    let mut all = ResourceSlices::default();
    for (i, input) in labelled(inputs, "slices").iter().enumerate() {
        let field = if inputs.len() == 1 {
            "slices".to_string()
        } else {
            format!("slices[{i}]")
        };
        let one = read_resource_slices(&input.text).map_err(|e| {
            let e = e.in_field(&field);
            Error {
                message: format!("{} (in {})", e.message, input.label),
                ..e
            }
        })?;
        all.slices.extend(one.slices);
        all.notes.extend(one.notes);
    }
    let devices: usize = all.slices.iter().map(|s| s.devices.len()).sum();
    if devices > MAX_DEVICES {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("{devices} devices; the limit is {MAX_DEVICES}"),
        )
        .in_field("slices"));
    }
    if !all.slices.iter().any(|s| {
        s.driver == crate::discover::resource_slice::NVIDIA_DRIVER && !s.devices.is_empty()
    }) {
        return Err(Error::new(
            ErrorKind::Syntax,
            "no device of the NVIDIA DRA driver (gpu.nvidia.com) in the ResourceSlices: nothing to simulate",
        )
        .in_field("slices"));
    }
    Ok(all)
}

/// The options as written: the packing's (`optimize`, `time_limit_ms`) beside the simulation's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimulateDraSettings {
    pub pack: PackOptions,
    pub simulate: SimulationOptions,
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for SimulateDraSettings {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        use serde::de::Error as _;
        use serde_json::{Map, Value};
        let mut simulate = Map::deserialize(d)?;
        let mut pack = Map::new();
        for key in super::pack::PACK_OPTION_KEYS {
            if let Some(v) = simulate.remove(key) {
                pack.insert(key.into(), v);
            }
        }
        Ok(SimulateDraSettings {
            pack: serde_json::from_value(Value::Object(pack)).map_err(D::Error::custom)?,
            simulate: serde_json::from_value(Value::Object(simulate)).map_err(D::Error::custom)?,
        })
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for SimulateDraRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        /// The request as written: the packing's fields beside `slices`.
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Written {
            #[serde(deserialize_with = "super::discover::texts::one_or_many")]
            slices: Vec<DetectInput>,
            asks: Vec<crate::parse::AskEntry>,
            #[serde(default)]
            gpu_count: Option<u64>,
            #[serde(default, rename = "caps")]
            cluster: Cluster,
            #[serde(default)]
            options: SimulateDraSettings,
        }
        let w = Written::deserialize(d)?;
        Ok(SimulateDraRequest {
            slices: w.slices,
            pack: PackRequest {
                asks: w.asks,
                gpu_count: w.gpu_count,
                cluster: w.cluster,
                options: w.options.pack,
            },
            options: w.options.simulate,
        })
    }
}
