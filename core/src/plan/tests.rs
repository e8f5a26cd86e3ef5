//! The mechanism rules, ask by ask.

use super::*;
use crate::error::ErrorKind;

fn ask(spec: &str) -> FractionalAsk {
    FractionalAsk::parse_spec(spec).unwrap()
}

fn share(s: &str) -> Share {
    Share::parse(s).unwrap()
}

fn caps(f: impl FnOnce(&mut ClusterGpuCaps)) -> ClusterGpuCaps {
    let mut c = ClusterGpuCaps::default();
    f(&mut c);
    c
}

#[test]
fn no_flags_is_the_honest_fallback() {
    let c = select_mechanism(&ask("JPCP:0.25"), &ClusterGpuCaps::default()).unwrap();
    assert_eq!(c.mechanism, Mechanism::Whole);
    assert_eq!(c.isolation, Isolation::Exclusive);
    assert_eq!(c.allocated_fraction, Share::ONE);
    assert_eq!(c.wasted_fraction, share("0.75"));
    assert_eq!(
        c.notes,
        ["no fractional support — rounded 0.25 up to a whole GPU (75% wasted)"]
    );
    assert_eq!(c.warnings, ["75% GPU capacity wasted by this fallback."]);
}

#[test]
fn mig_picks_the_least_wasteful_covering_profile() {
    let c = select_mechanism(&ask("JPCP:0.25"), &caps(|c| c.supports_mig = true)).unwrap();
    assert_eq!(c.mechanism, Mechanism::Mig);
    assert_eq!(c.isolation, Isolation::Hardware);
    // 1g.10gb has 1/4 of the memory but only 1/7 of the compute; 2g.10gb covers both.
    assert_eq!(c.mig_profile.as_deref(), Some("2g.10gb"));
    assert_eq!(c.allocated_fraction, share("2/7"));
    assert_eq!(c.wasted_fraction, share("1/28"));
    assert!(c.notes[0].contains("A100-SXM4-40GB assumed"));

    // 1g.5gb is 1/7 of the compute but only 1/8 of the memory: it covers 1/8, not 1/7.
    let eighth = select_mechanism(&ask("s:1/8"), &caps(|c| c.supports_mig = true)).unwrap();
    assert_eq!(eighth.mig_profile.as_deref(), Some("1g.5gb"));
    assert_eq!(eighth.wasted_fraction, share("1/56"));
    let seventh = select_mechanism(&ask("s:1/7"), &caps(|c| c.supports_mig = true)).unwrap();
    assert_eq!(seventh.mig_profile.as_deref(), Some("1g.10gb"));

    // 3g.20gb holds half the memory but 3/7 of the compute, so half a GPU needs 4g.20gb.
    let half = select_mechanism(&ask("h:0.5"), &caps(|c| c.supports_mig = true)).unwrap();
    assert_eq!(half.mig_profile.as_deref(), Some("4g.20gb"));
    let three = select_mechanism(&ask("h:3/7"), &caps(|c| c.supports_mig = true)).unwrap();
    assert_eq!(three.mig_profile.as_deref(), Some("3g.20gb"));
}

#[test]
fn mig_respects_the_allowed_profiles() {
    let c = caps(|c| {
        c.supports_mig = true;
        c.mig_profiles = Some(vec!["1g.5gb".into(), "2g.10gb".into()]);
    });
    let seed = select_mechanism(&ask("JPCP:0.2"), &c).unwrap();
    assert_eq!(seed.mig_profile.as_deref(), Some("2g.10gb"));
    let too_big = select_mechanism(&ask("big:0.5"), &c).unwrap();
    assert_eq!(too_big.mechanism, Mechanism::Whole);
    assert!(
        too_big
            .notes
            .iter()
            .any(|n| n.contains("no allowed MIG profile covers 0.5")),
        "{:?}",
        too_big.notes
    );
    let with_mps = ClusterGpuCaps {
        supports_mps: true,
        ..c
    };
    assert_eq!(
        select_mechanism(&ask("big:0.5"), &with_mps)
            .unwrap()
            .mechanism,
        Mechanism::Mps
    );
}

#[test]
fn named_profiles() {
    let on_mig = select_mechanism(&ask("JPCP:2g.10gb"), &caps(|c| c.supports_mig = true)).unwrap();
    assert_eq!(on_mig.mechanism, Mechanism::Mig);
    assert_eq!(on_mig.mig_profile.as_deref(), Some("2g.10gb"));
    assert!(on_mig.wasted_fraction.is_zero());

    let no_mig = select_mechanism(
        &ask("JPCP:2g.10gb"),
        &caps(|c| c.supports_timeslicing = true),
    )
    .unwrap();
    assert_eq!(no_mig.mechanism, Mechanism::Whole);
    assert_eq!(no_mig.wasted_fraction, share("5/7"));
    assert!(
        no_mig.notes[1].contains("no MIG on this cluster"),
        "{:?}",
        no_mig.notes
    );

    let unknown =
        select_mechanism(&ask("x:9g.99gb"), &caps(|c| c.supports_mig = true)).unwrap_err();
    assert_eq!(unknown.kind, ErrorKind::UnknownProfile);
    assert!(unknown.message.contains("2g.10gb"));

    let h200 = select_mechanism(&ask("x:3g.71gb"), &caps(|c| c.supports_mig = true)).unwrap();
    assert_eq!(h200.gpu_model.as_deref(), Some("H200"));

    let not_allowed = caps(|c| {
        c.supports_mig = true;
        c.mig_profiles = Some(vec!["1g.5gb".into()]);
    });
    let c = select_mechanism(&ask("x:3g.20gb"), &not_allowed).unwrap();
    assert_eq!(c.mechanism, Mechanism::Whole);
    assert!(c.notes.iter().any(|n| n.contains("not among the allowed")));
}

#[test]
fn mps_and_timeslice() {
    let ts = select_mechanism(&ask("JPCP:0.5"), &caps(|c| c.supports_timeslicing = true)).unwrap();
    assert_eq!(
        (ts.mechanism, ts.isolation),
        (Mechanism::Timeslice, Isolation::Soft)
    );
    assert_eq!(ts.allocated_fraction, share("0.5"));
    assert!(ts.warnings[0].contains("no memory limit, compute share or fault isolation"));

    let mps = select_mechanism(
        &ask("m:0.25"),
        &caps(|c| {
            c.supports_mps = true;
            c.supports_timeslicing = true;
            c.gpu_model = Some("l40s".into());
        }),
    )
    .unwrap();
    assert_eq!(
        (mps.mechanism, mps.isolation),
        (Mechanism::Mps, Isolation::Partial)
    );
    let limits = mps.mps.unwrap();
    assert_eq!(limits.active_thread_percentage, 25);
    assert_eq!(limits.pinned_memory_mib, Some(11517));
}

#[test]
fn whole_gpus_for_one_or_more() {
    let two = select_mechanism(&ask("t:2"), &caps(|c| c.supports_mig = true)).unwrap();
    assert_eq!((two.mechanism, two.gpus), (Mechanism::Whole, 2));
    assert!(two.wasted_fraction.is_zero() && two.warnings.is_empty());
    let odd = select_mechanism(&ask("t:2.5"), &caps(|c| c.supports_timeslicing = true)).unwrap();
    assert_eq!(odd.gpus, 3);
    assert_eq!(odd.wasted_fraction, share("0.5"));
    assert_eq!(
        odd.warnings,
        ["17% GPU capacity wasted by rounding up to whole GPUs."]
    );
}

/// Issue #13, rule 11: a 0.1 ask given only 3g.71gb and 7g.141gb on an H200 gets a 3g.71gb —
/// 0.5 of the GPU, 80% of it wasted — while time-slicing was available: the plan keeps MIG's
/// isolation but warns, and names the cheaper mechanism.
#[test]
fn mostly_wasted_mig_instances_warn_and_name_the_cheaper_mechanism() {
    let caps = ClusterGpuCaps {
        supports_mig: true,
        supports_timeslicing: true,
        gpu_model: Some("H200".into()),
        mig_profiles: Some(vec!["3g.71gb".into(), "7g.141gb".into()]),
        ..Default::default()
    };
    let c = select_mechanism(&FractionalAsk::parse_spec("small:0.1").unwrap(), &caps).unwrap();
    assert_eq!(c.mig_profile.as_deref(), Some("3g.71gb"));
    let w = c
        .warnings
        .iter()
        .find(|w| w.contains("wasted"))
        .expect("a waste warning");
    assert!(w.starts_with("80% of 3g.71gb wasted"), "{w}");
    assert!(w.contains("time-slicing would allocate just 0.1"), "{w}");
    // Without a cheaper mechanism it still warns, and says there is none.
    let only_mig = ClusterGpuCaps {
        supports_timeslicing: false,
        ..caps.clone()
    };
    let c = select_mechanism(&FractionalAsk::parse_spec("small:0.1").unwrap(), &only_mig).unwrap();
    assert!(c
        .warnings
        .iter()
        .any(|w| w.contains("offers no cheaper mechanism")));
    // A close fit does not warn: 0.25 on an A100-40GB takes 2g.10gb, 12.5% over.
    let a100 = ClusterGpuCaps {
        supports_mig: true,
        supports_timeslicing: true,
        ..Default::default()
    };
    let c = select_mechanism(&FractionalAsk::parse_spec("q:0.25").unwrap(), &a100).unwrap();
    assert!(
        !c.warnings.iter().any(|w| w.contains("wasted")),
        "{:?}",
        c.warnings
    );
}

/// What time-slicing does and does not give, from its sources. NVIDIA k8s-device-plugin README
/// ("Shared Access to GPUs"): "nothing special is done to isolate workloads that are granted
/// replicas from the same underlying GPU, and each workload has access to the GPU memory and runs
/// in the same fault-domain as of all the others". NVIDIA MPS documentation ("When to Use MPS"):
/// "Without MPS, each CUDA processes using a GPU allocates separate storage and scheduling
/// resources on the GPU", and the MIG User Guide ("Terminology") gives a GPU context "Fault
/// isolation", "Individually scheduled", "Distinct address space". So each process keeps its own
/// context and memory protection; what is missing is a memory limit, a compute share and a fault
/// domain of its own — not the context.
#[test]
fn time_slicing_warning_says_what_is_missing_and_what_is_kept() {
    let ts = select_mechanism(&ask("JPCP:0.5"), &caps(|c| c.supports_timeslicing = true)).unwrap();
    let w = &ts.warnings[0];
    for part in [
        "no memory limit",
        "compute share",
        "fault isolation",
        "own CUDA context and memory protection",
        "one fault domain",
    ] {
        assert!(w.contains(part), "{part:?} missing: {w}");
    }
    assert!(!w.contains("shared context"), "{w}");
    let explain = Isolation::Soft.explain();
    assert!(explain.contains("own CUDA contexts"), "{explain}");
    assert!(explain.contains("no memory limit, compute share or fault isolation"));
}

/// NVIDIA MPS documentation ("Volta MPS Execution Resource Provisioning"): "Setting the limit does
/// not reserve dedicated resources for any MPS client context. It simply limits how much
/// resources can be used by a client context." So where MPS is explained, the thread percentage
/// is called a ceiling, not a reservation.
#[test]
fn mps_thread_percentage_is_a_ceiling_not_a_reservation() {
    let mps = select_mechanism(&ask("m:0.25"), &caps(|c| c.supports_mps = true)).unwrap();
    let note = mps
        .notes
        .iter()
        .find(|n| n.contains("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25"))
        .unwrap();
    assert!(note.contains("a ceiling, not a reservation"), "{note}");
    assert!(Isolation::Partial
        .explain()
        .contains("ceiling (not a reservation)"));
}

/// A MIG share is counted in NVIDIA's compute and memory slices; where the board's real
/// `nvidia-smi mig -lgip` is known, the note gives the instance's SMs, and a warning says when its
/// share of the SMs is less than the fraction asked (docs/hardware-facts.md §1.3).
#[test]
fn mig_notes_give_the_boards_sms_and_warn_when_they_fall_short() {
    let h100 = |c: &mut ClusterGpuCaps| {
        c.supports_mig = true;
        c.gpu_model = Some("NVIDIA H100 80GB HBM3".into());
    };
    // A real `nvidia-smi mig -lgip` on an H100 SXM5 80GB (stackhpc/ansible-slurm-appliance
    // docs/mig.md):
    //   |   0  MIG 4g.40gb        5     1/1        39.50      No     64     4     0   |
    //   |   0  MIG 7g.80gb        0     1/1        79.25      No     132    7     0   |
    // Half a GPU needs 4g.40gb: 4/7 of the compute slices cover 0.5, but 64/132 = 0.485 of the SMs
    // do not.
    let half = select_mechanism(&ask("h:0.5"), &caps(h100)).unwrap();
    assert_eq!(half.mig_profile.as_deref(), Some("4g.40gb"));
    assert_eq!(
        half.notes,
        ["4g.40gb on H100-80GB-HBM3: 4 of 7 compute slices, 4 of 8 memory slices = 0.5714 of the GPU (64 of 132 SMs), 0.0714 more than asked"]
    );
    assert!(half.warnings.contains(&"4g.40gb has 64 of 132 SMs (0.48 of the GPU's SMs), less than the 0.5 asked; compute slices are not equal SM shares".into()), "{:?}", half.warnings);
    // The same board's 3g.40gb, for an ask of 3/7 (0.4286): its 60 of 132 SMs (0.4545) cover it,
    // so no warning.
    //   |   0  MIG 3g.40gb        9     2/2        39.50      No     60     3     0   |
    let three = select_mechanism(&ask("t:3/7"), &caps(h100)).unwrap();
    assert_eq!(three.mig_profile.as_deref(), Some("3g.40gb"));
    assert!(
        three.notes[0].contains("(60 of 132 SMs)"),
        "{:?}",
        three.notes
    );
    assert!(
        !three.warnings.iter().any(|w| w.contains("SMs")),
        "{:?}",
        three.warnings
    );
    // A named profile asks for the profile, not a share: its SMs are noted, not warned about.
    let named = select_mechanism(&ask("n:4g.40gb"), &caps(h100)).unwrap();
    assert!(
        named.notes[0].ends_with("(64 of 132 SMs)"),
        "{:?}",
        named.notes
    );
    assert!(
        !named.warnings.iter().any(|w| w.contains("SMs")),
        "{:?}",
        named.warnings
    );
    // On the A100-SXM4-40GB each slice is 14 SMs of 98: a real `nvidia-smi mig -lgip` (driver
    // 580.126.09, a public blog post) lists 2g.10gb with 28 SMs and 7g.40gb with 98 — the share of
    // the slices and of the SMs agree, and nothing is warned.
    let quarter = select_mechanism(&ask("q:0.25"), &caps(|c| c.supports_mig = true)).unwrap();
    assert!(
        quarter.notes[1].contains("= 0.2857 of the GPU (28 of 98 SMs)"),
        "{:?}",
        quarter.notes
    );
    assert!(quarter.warnings.is_empty(), "{:?}", quarter.warnings);
    // The H200's 7g count was not seen: the SMs of the instance alone, and no share to compare.
    let h200 = select_mechanism(
        &ask("h:0.5"),
        &caps(|c| {
            c.supports_mig = true;
            c.gpu_model = Some("H200".into());
        }),
    )
    .unwrap();
    assert!(h200.notes[0].contains("(64 SMs)"), "{:?}", h200.notes);
    assert!(!h200.warnings.iter().any(|w| w.contains("SMs")));
    // A board without counts: no SMs in the note.
    let b200 = select_mechanism(
        &ask("h:0.5"),
        &caps(|c| {
            c.supports_mig = true;
            c.gpu_model = Some("B200".into());
        }),
    )
    .unwrap();
    assert!(!b200.notes[0].contains("SMs"), "{:?}", b200.notes);
}

/// gpu-share#55: where drivers list an instance's memory differently, a plan uses the smallest
/// listing, or the listing of the driver the user names (docs/hardware-facts.md §1.6): the
/// A100-40GB's two-slice instance is 9.62 GiB in the MIG User Guide's -lgip and 9.75 GiB under
/// driver 580.126.09 (a real -lgip in a public blog post).
#[test]
fn a_named_driver_plans_with_its_own_listing() {
    let on = |driver: Option<&str>| {
        caps(|c| {
            c.supports_mig = true;
            c.gpu_model = Some("A100-SXM4-40GB".into());
            c.context_overhead_mib = Some(0);
            c.driver = driver.map(String::from);
        })
    };
    let m = ask("m:9940MiB");
    let slices = |c: &Choice| {
        let model = crate::catalog::find_model("A100-SXM4-40GB").unwrap();
        model
            .profile(c.mig_profile.as_deref().unwrap())
            .unwrap()
            .memory_slices
    };
    let smallest = select_mechanism(&m, &on(None)).unwrap();
    assert_eq!(slices(&smallest), 4, "9.62 GiB cannot hold 9940 MiB");
    let named = select_mechanism(&m, &on(Some("580.126.09"))).unwrap();
    assert_eq!(slices(&named), 2, "{:?}", named.notes);
    assert_eq!(named.allocated_memory_mib, Some(9984));
    assert!(
        named
            .notes
            .iter()
            .any(|n| n.contains("as listed for driver 580.126.09")),
        "{:?}",
        named.notes
    );
    let unknown = select_mechanism(&m, &on(Some("999.1"))).unwrap();
    assert_eq!(slices(&unknown), 4);
    assert!(
        unknown
            .notes
            .iter()
            .any(|n| n.contains("no listing from driver 999.1 is known")),
        "{:?}",
        unknown.notes
    );
    let bad = select_mechanism(&m, &on(Some("latest"))).unwrap_err();
    assert_eq!(bad.field.as_deref(), Some("driver"));
}

/// Issue #58: a memory ask on a larger instance says why the next smaller one was not taken —
/// the memory asked itself (A100-80GB's 20gb profiles list 19.5 GiB: docs/hardware-facts.md
/// §1.6, a real -lgip), or only the CUDA context (§10) each process adds.
#[test]
fn a_memory_ask_says_why_the_smaller_instance_is_not_enough() {
    let a100 = caps(|c| {
        c.supports_mig = true;
        c.gpu_model = Some("A100-SXM4-80GB".into());
    });
    let notes = |spec: &str| {
        let c = select_mechanism(&ask(spec), &a100).unwrap();
        (c.mig_profile.unwrap(), c.notes)
    };
    let (profile, said) = notes("x:20GiB");
    assert_eq!(profile, "3g.40gb");
    assert!(
        said.iter().any(|n| n
            == "not 1g.20gb or 2g.20gb: each offers 19.5 GiB, less than the 20 GiB asked (a profile's name is not the memory it offers)"),
        "{said:?}"
    );
    let (profile, said) = notes("x:19.2GiB");
    assert_eq!(profile, "3g.40gb");
    assert!(
        said.iter().any(|n| {
            n.ends_with(
            "which holds the 19.2 GiB asked but not with the 500 MiB CUDA context each process adds"
        )
        }),
        "{said:?}"
    );
    // The smallest instance that holds it: nothing smaller to explain.
    let (profile, said) = notes("x:4GiB");
    assert_eq!(profile, "1g.10gb");
    assert!(!said.iter().any(|n| n.starts_with("not ")), "{said:?}");
}

/// Issue #58: a MIG profile on a cluster that time-slices but has no MIG falls back to a whole
/// GPU, and offers the same share with the instance's memory (less the CUDA context the plan
/// adds back), which time-slicing then packs beside another half.
#[test]
fn a_profile_without_mig_offers_its_share_with_memory() {
    let timeslice = caps(|c| {
        c.supports_timeslicing = true;
        c.gpu_model = Some("A100-SXM4-80GB".into());
    });
    let c = select_mechanism(&ask("x:3g.40gb"), &timeslice).unwrap();
    assert_eq!(c.mechanism, Mechanism::Whole);
    let instead = c.share_instead.clone().unwrap();
    assert_eq!(
        (instead.fraction.as_str(), instead.memory.as_str()),
        ("0.5", "39692MiB"),
        "3g.40gb: 4 of 8 memory slices, 39.25 GiB listed, less 500 MiB"
    );
    let shared = ask(&format!("x:{}:{}", instead.fraction, instead.memory));
    let taken = select_mechanism(&shared, &timeslice).unwrap();
    assert_eq!(taken.mechanism, Mechanism::Timeslice);
    assert_eq!(taken.held_memory_mib, Some(40192), "what the instance held");
    // No sharing mechanism: nothing to offer.
    let whole_only = caps(|c| c.gpu_model = Some("A100-SXM4-80GB".into()));
    assert_eq!(
        select_mechanism(&ask("x:3g.40gb"), &whole_only)
            .unwrap()
            .share_instead,
        None
    );
}
