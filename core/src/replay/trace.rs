//! The replay's input: a node list and a pod list in the Alibaba 2023 GPU trace's CSV form
//! (docs/hardware-facts.md §12), read into exact integers.
//!
//! Nodes: `sn, cpu_milli, memory_mib, gpu, model`. Pods: `name, cpu_milli, memory_mib, num_gpu,
//! gpu_milli, gpu_spec, …` — the trace's other columns (qos, phase, times) are read past. A pod
//! asks no GPU (`num_gpu` 0), `num_gpu` whole GPUs on one node (`gpu_milli` 1000), or a share of
//! one GPU (`num_gpu` 1, `gpu_milli` below 1000); `gpu_spec` is empty (any model) or `A|B|…`.

use crate::error::{Error, ErrorKind, Result};
use crate::parse::check_size;

/// One GPU, in thousandths (the trace's `gpu_milli`).
pub const GPU_MILLI: u32 = 1000;
/// The most nodes a node list may hold.
pub const MAX_NODES: usize = 100_000;
/// The most pods a pod list may hold.
pub const MAX_PODS: usize = 1_000_000;
/// The most GPUs one node may have (the trace's largest nodes have 8).
pub const MAX_GPUS_PER_NODE: u32 = 64;
/// The most GPU models the node and pod lists may name together (a model set is a 64-bit mask).
pub const MAX_MODELS: usize = 64;
/// Bounds on a node's or pod's CPU (milli) and memory (MiB): far above any machine, low enough
/// that sums over a million pods stay exact in `u64`.
pub const MAX_CPU_MILLI: u64 = 1 << 32;
pub const MAX_MEMORY_MIB: u64 = 1 << 36;

/// The GPU models named in a trace, each an index into [`Trace::models`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ModelSet(u64);

impl ModelSet {
    pub fn any() -> Self {
        ModelSet(u64::MAX)
    }
    pub fn contains(self, model: u8) -> bool {
        self.0 & (1 << model) != 0
    }
    pub fn bits(self) -> u64 {
        self.0
    }
    pub fn from_bits(bits: u64) -> Self {
        ModelSet(bits)
    }
    fn insert(&mut self, model: u8) {
        self.0 |= 1 << model;
    }
}

/// One node of the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub cpu_milli: u64,
    pub memory_mib: u64,
    pub gpus: u32,
    /// Index into [`Trace::models`]; meaningless when `gpus` is 0.
    pub model: u8,
}

/// What a pod asks of GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PodGpu {
    /// No GPU: CPU and memory only.
    None,
    /// This many whole GPUs, all on one node.
    Whole(u32),
    /// A share of one GPU, in milli (1–999).
    Share(u32),
}

impl PodGpu {
    /// The GPU-milli the pod asks.
    pub fn milli(self) -> u64 {
        match self {
            PodGpu::None => 0,
            PodGpu::Whole(n) => u64::from(n) * u64::from(GPU_MILLI),
            PodGpu::Share(m) => u64::from(m),
        }
    }
}

/// One pod of the workload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pod {
    pub name: String,
    pub cpu_milli: u64,
    pub memory_mib: u64,
    pub gpu: PodGpu,
    /// The GPU models the pod may run on (`gpu_spec`); every model when the spec is empty.
    pub models: ModelSet,
}

/// A node list and a pod list, read together so that both name models by one index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    pub models: Vec<String>,
    pub nodes: Vec<Node>,
    pub pods: Vec<Pod>,
}

impl Trace {
    /// Reads a node list and a pod list. Errors name the list (`nodes`, `pods`), the line and the
    /// column.
    ///
    /// # Errors
    /// `TooLarge` beyond the limits above; `Syntax` for a missing column or a value that is not a
    /// whole number; `OutOfRange` for a pod whose GPU ask the trace's form does not allow, an
    /// empty node or pod list, or a pod asking nothing.
    pub fn read(nodes_csv: &str, pods_csv: &str) -> Result<Trace> {
        check_size(nodes_csv, "the node list").map_err(|e| e.in_field("nodes"))?;
        check_size(pods_csv, "the pod list").map_err(|e| e.in_field("pods"))?;
        let mut models = Vec::new();
        let nodes = read_nodes(nodes_csv, &mut models).map_err(|e| e.in_field("nodes"))?;
        let pods = read_pods(pods_csv, &mut models).map_err(|e| e.in_field("pods"))?;
        Ok(Trace {
            models,
            nodes,
            pods,
        })
    }

    /// The cluster's GPU capacity in milli.
    pub fn capacity_milli(&self) -> u64 {
        self.nodes.iter().map(|n| u64::from(n.gpus)).sum::<u64>() * u64::from(GPU_MILLI)
    }
}

/// A CSV table's header and rows, split on commas (the trace quotes nothing).
struct Table<'a> {
    header: Vec<&'a str>,
    rows: Vec<(usize, Vec<&'a str>)>,
}

fn table<'a>(text: &'a str, max_rows: usize, what: &str) -> Result<Table<'a>> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_end_matches('\r')))
        .filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!("{what} is empty"),
        ));
    };
    let header: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut rows = Vec::new();
    for (line, text) in lines {
        if rows.len() == max_rows {
            return Err(Error::new(
                ErrorKind::TooLarge,
                format!("{what} has more than {max_rows} rows; the limit is {max_rows}"),
            )
            .at_line(line));
        }
        let cells: Vec<&str> = text.split(',').map(str::trim).collect();
        if cells.len() != header.len() {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!(
                    "{} cells where the header has {}",
                    cells.len(),
                    header.len()
                ),
            )
            .at_line(line));
        }
        rows.push((line, cells));
    }
    if rows.is_empty() {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!("{what} has a header and no rows"),
        ));
    }
    Ok(Table { header, rows })
}

impl Table<'_> {
    fn column(&self, name: &str) -> Result<usize> {
        self.header.iter().position(|h| *h == name).ok_or_else(|| {
            Error::new(
                ErrorKind::Syntax,
                format!(
                    "no column {name:?}; the header is {:?}",
                    self.header.join(",")
                ),
            )
            .at_line(1)
        })
    }
}

fn number(cell: &str, column: &str, max: u64) -> Result<u64> {
    let value: u64 = cell.parse().map_err(|_| {
        Error::new(
            ErrorKind::Syntax,
            format!("must be a whole number, got {cell:?}"),
        )
        .in_field(column)
    })?;
    if value > max {
        return Err(Error::new(
            ErrorKind::OutOfRange,
            format!("{value} is more than the limit {max}"),
        )
        .in_field(column));
    }
    Ok(value)
}

fn model_index(name: &str, models: &mut Vec<String>) -> Result<u8> {
    if let Some(i) = models.iter().position(|m| m == name) {
        return Ok(i as u8);
    }
    if models.len() == MAX_MODELS {
        return Err(Error::new(
            ErrorKind::TooLarge,
            format!("more than {MAX_MODELS} GPU models; the limit is {MAX_MODELS}"),
        ));
    }
    models.push(name.to_string());
    Ok((models.len() - 1) as u8)
}

fn read_nodes(text: &str, models: &mut Vec<String>) -> Result<Vec<Node>> {
    let table = table(text, MAX_NODES, "the node list")?;
    let [sn, cpu, mem, gpu, model] =
        ["sn", "cpu_milli", "memory_mib", "gpu", "model"].map(|c| table.column(c));
    let (sn, cpu, mem, gpu, model) = (sn?, cpu?, mem?, gpu?, model?);
    let mut nodes = Vec::with_capacity(table.rows.len());
    for (line, cells) in &table.rows {
        let node = (|| {
            let gpus = number(cells[gpu], "gpu", u64::from(MAX_GPUS_PER_NODE))? as u32;
            let model = match (gpus, cells[model]) {
                (0, _) => 0,
                (_, "") => {
                    return Err(
                        Error::new(ErrorKind::Syntax, "a node with GPUs names their model")
                            .in_field("model"),
                    )
                }
                (_, name) => model_index(name, models).map_err(|e| e.in_field("model"))?,
            };
            Ok(Node {
                name: cells[sn].to_string(),
                cpu_milli: number(cells[cpu], "cpu_milli", MAX_CPU_MILLI)?,
                memory_mib: number(cells[mem], "memory_mib", MAX_MEMORY_MIB)?,
                gpus,
                model,
            })
        })()
        .map_err(|e: Error| e.at_line(*line))?;
        nodes.push(node);
    }
    Ok(nodes)
}

fn read_pods(text: &str, models: &mut Vec<String>) -> Result<Vec<Pod>> {
    let table = table(text, MAX_PODS, "the pod list")?;
    let [name, cpu, mem, num, milli] =
        ["name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"].map(|c| table.column(c));
    let (name, cpu, mem, num, milli) = (name?, cpu?, mem?, num?, milli?);
    let spec = table.column("gpu_spec").ok();
    let mut pods = Vec::with_capacity(table.rows.len());
    for (line, cells) in &table.rows {
        let pod = (|| {
            let num_gpu = number(cells[num], "num_gpu", u64::from(MAX_GPUS_PER_NODE))? as u32;
            let gpu_milli = number(cells[milli], "gpu_milli", u64::from(GPU_MILLI))? as u32;
            let gpu = pod_gpu(num_gpu, gpu_milli)?;
            let cpu_milli = number(cells[cpu], "cpu_milli", MAX_CPU_MILLI)?;
            let memory_mib = number(cells[mem], "memory_mib", MAX_MEMORY_MIB)?;
            if gpu == PodGpu::None && cpu_milli == 0 && memory_mib == 0 {
                return Err(Error::new(
                    ErrorKind::OutOfRange,
                    "the pod asks for nothing",
                ));
            }
            let models = match spec.map(|s| cells[s]) {
                None | Some("") => ModelSet::any(),
                Some(spec) => model_set(spec, models).map_err(|e| e.in_field("gpu_spec"))?,
            };
            Ok(Pod {
                name: cells[name].to_string(),
                cpu_milli,
                memory_mib,
                gpu,
                models,
            })
        })()
        .map_err(|e: Error| e.at_line(*line))?;
        pods.push(pod);
    }
    Ok(pods)
}

fn pod_gpu(num_gpu: u32, gpu_milli: u32) -> Result<PodGpu> {
    match (num_gpu, gpu_milli) {
        (0, 0) => Ok(PodGpu::None),
        (n, GPU_MILLI) if n > 0 => Ok(PodGpu::Whole(n)),
        (1, m) if m > 0 => Ok(PodGpu::Share(m)),
        (0, m) => Err(Error::new(
            ErrorKind::OutOfRange,
            format!("gpu_milli {m} with num_gpu 0: a pod without GPUs asks 0"),
        )
        .in_field("gpu_milli")),
        (n, m) => Err(Error::new(
            ErrorKind::OutOfRange,
            format!("num_gpu {n} with gpu_milli {m}: a share (below 1000) is of one GPU, and whole GPUs ask 1000"),
        )
        .in_field("gpu_milli")),
    }
}

fn model_set(spec: &str, models: &mut Vec<String>) -> Result<ModelSet> {
    let mut set = ModelSet::default();
    for name in spec.split('|').map(str::trim) {
        if name.is_empty() {
            return Err(Error::new(
                ErrorKind::Syntax,
                format!("{spec:?} has an empty model name; the form is A|B|…"),
            ));
        }
        set.insert(model_index(name, models)?);
    }
    Ok(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NODES: &str =
        "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,131072,4,V100M16\nn1,8000,32768,0,\n";
    const PODS: &str = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos\n\
        p0,4000,8192,1,460,,LS\np1,8000,16384,2,1000,V100M16|T4,BE\np2,1000,1024,0,0,,LS\n";

    #[test]
    fn reads_the_three_kinds_of_pod_and_their_models() {
        let trace = Trace::read(NODES, PODS).unwrap();
        assert_eq!(trace.models, ["V100M16", "T4"]);
        assert_eq!(trace.capacity_milli(), 4000);
        let gpus: Vec<_> = trace.pods.iter().map(|p| p.gpu).collect();
        assert_eq!(gpus, [PodGpu::Share(460), PodGpu::Whole(2), PodGpu::None]);
        assert!(trace.pods[1].models.contains(1) && !trace.pods[1].models.contains(2));
        assert!(trace.pods[0].models.contains(5));
    }

    #[test]
    fn errors_name_list_line_and_column() {
        let e = Trace::read(
            NODES,
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,2,500\n",
        )
        .unwrap_err();
        assert_eq!(
            (e.field.as_deref(), e.line),
            (Some("pods.gpu_milli"), Some(2))
        );
        let e = Trace::read("sn,cpu_milli,memory_mib,gpu\nn,1,1,1\n", PODS).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("nodes"));
        assert!(e.message.contains("no column \"model\""), "{e}");
        let e = Trace::read(
            NODES,
            "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,x,1,1,500\n",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 2, field \"pods.cpu_milli\": must be a whole number, got \"x\""
        );
        assert!(Trace::read(NODES, "name,cpu_milli\n").is_err());
    }
}
