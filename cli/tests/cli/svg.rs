//! `pack --svg FILE`: the packing diagram as a standalone SVG document, the usual output still
//! printed; `--svg -` for standard output (not beside `--json`); a file that cannot be written is
//! an output error (exit 1) that records nothing.

use crate::common::{gpu_share_in, json, stdout};
use crate::export::MIG;
use predicates::str::contains;

#[test]
fn the_diagram_goes_to_the_file_and_the_report_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let plain = stdout(gpu_share_in(dir.path()).arg("pack").args(MIG));
    let with_svg = stdout(
        gpu_share_in(dir.path())
            .arg("pack")
            .args(MIG)
            .args(["--svg", "plan.svg"]),
    );
    assert_eq!(with_svg, plain, "the usual output is unchanged");
    let svg = std::fs::read_to_string(dir.path().join("plan.svg")).unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""),
        "{svg}"
    );
    assert!(svg.ends_with("</svg>\n"));
    for ask in ["x", "y", "z"] {
        assert!(svg.contains(&format!("data-ask=\"{ask}\"")), "{ask}");
    }
    assert!(svg.contains("<desc id=\"gpu-share-desc\">1 GPU used, lower bound 1, 0 unplaced, model A100-SXM4-40GB</desc>"));
    // With --json, the JSON is standard output and the diagram still goes to the file.
    let v =
        json(
            gpu_share_in(dir.path())
                .arg("pack")
                .args(MIG)
                .args(["--json", "--svg", "again.svg"]),
        );
    assert_eq!(v["gpus_used"], 1);
    let again = std::fs::read_to_string(dir.path().join("again.svg")).unwrap();
    assert_eq!(again, svg, "the same packing, the same bytes");
}

#[test]
fn a_dash_writes_the_diagram_alone_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let out = gpu_share_in(dir.path())
        .args([
            "pack",
            "--ask",
            "a:0.5",
            "--ask",
            "b:0.6",
            "--timeslice",
            "--gpus",
            "1",
            "--svg",
            "-",
        ])
        .assert()
        .code(3)
        .get_output()
        .stdout
        .clone();
    let svg = String::from_utf8(out).unwrap();
    assert!(
        svg.starts_with("<svg ") && svg.ends_with("</svg>\n"),
        "{svg}"
    );
    assert!(svg.contains("Unplaced (1)") && svg.contains("data-ask=\"a\""));
    assert!(
        !svg.contains("asks on"),
        "no text report beside the diagram"
    );
    gpu_share_in(dir.path())
        .arg("pack")
        .args(MIG)
        .args(["--svg", "-", "--json"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains(
            "--svg - and --json would both write to standard output",
        ));
}

#[test]
fn a_file_that_cannot_be_written_is_an_error_and_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    gpu_share_in(dir.path())
        .arg("pack")
        .args(MIG)
        .args(["--record", "--svg", "no/such/dir/plan.svg"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("cannot write output: no/such/dir/plan.svg"));
    assert!(!dir.path().join("ledger").exists(), "nothing recorded");
}

#[test]
fn help_names_the_flag_and_only_pack_has_it() {
    let dir = tempfile::tempdir().unwrap();
    let help = stdout(gpu_share_in(dir.path()).args(["pack", "--help"]));
    assert!(
        help.contains("--svg <FILE>") && help.contains("SVG document"),
        "{help}"
    );
    gpu_share_in(dir.path())
        .args(["export", "slurm", "--ask", "a:1", "--svg", "x.svg"])
        .assert()
        .code(2);
}
