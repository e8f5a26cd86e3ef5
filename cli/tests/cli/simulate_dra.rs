//! `gpu-share simulate-dra` end to end, on the dra-driver-nvidia-gpu#932 case: seven pods, each
//! with a template asking one 1g.10gb, on tests/fixtures/resourceslices' four H100 PCIe with
//! dynamic MIG.

use crate::common::{gpu_share, json, no_ledger, stdout};
use predicates::str::contains;

const DYNAMIC: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/fixtures/resourceslices/h100-pcie-dynamic-mig.json"
);

/// `simulate-dra --slices DYNAMIC --ask mig-claim-N:1g.10gb ×7 --dra-mig dynamic`, then `extra`.
fn case_932(extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = ["simulate-dra", "--slices", DYNAMIC, "--dra-mig", "dynamic"]
        .map(String::from)
        .to_vec();
    for i in 1..=7 {
        args.extend(["--ask".into(), format!("mig-claim-{i}:1g.10gb")]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

#[test]
fn the_932_case_reports_the_slices_templates_strand() {
    let text = stdout(gpu_share(no_ledger()).args(case_932(&[])));
    assert!(
        text.starts_with("gpu-share's plan: 7 asks on 1 GPU; 3 of the slices' 4 GPUs left whole; 1 memory slice stranded.\n"),
        "{text}"
    );
    assert!(text.contains("slices in list order:"), "{text}");
    assert!(
        text.contains("  a template per workload: 7 of 7 claims allocated on 4 GPUs; 0 GPUs left whole; 4 memory slices stranded ("),
        "{text}"
    );
    assert!(
        text.contains("Stranding in the spread order: claims written a template per workload use 3 more GPUs and strand 3 more memory slices"),
        "{text}"
    );
}

#[test]
fn json_is_the_core_response() {
    let v = json(gpu_share(no_ledger()).args(case_932(&["--order", "spread", "--json"])));
    let sims = v["simulations"].as_array().unwrap();
    assert_eq!(sims.len(), 1);
    assert_eq!(sims[0]["per_ask"]["order"], "spread");
    assert_eq!(sims[0]["per_ask"]["stranded_memory_slices"], 4);
    assert_eq!(sims[0]["gpu_share"]["whole_gpus_left"], 3);
    assert_eq!(v["pack"]["gpus_used"], 1);
    assert!(v["text"]
        .as_str()
        .unwrap()
        .contains("Stranding in the spread order"));
}

#[test]
fn slices_that_are_not_resource_slices_exit_1_naming_the_file() {
    let smi = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/nvidia-smi/linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt"
    );
    gpu_share(no_ledger())
        .args(["simulate-dra", "--slices", smi, "--ask", "a:1g.10gb"])
        .assert()
        .code(1)
        .stderr(contains("slices"))
        .stderr(contains(
            "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01.txt",
        ));
    gpu_share(no_ledger())
        .args(case_932(&["--k8s-version", "1.20"]))
        .assert()
        .code(1)
        .stderr(contains("--k8s-version"));
    gpu_share(no_ledger())
        .args(["simulate-dra", "--ask", "a:1g.10gb"])
        .assert()
        .code(2);
}
