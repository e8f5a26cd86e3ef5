//! Every entry point that reads text or takes asks and caps returns `Ok` or `Err` on arbitrary input — never panics.

use gpu_share_core::account::{parse_ledger, resolve, summarize, Rates};
use gpu_share_core::parse::parse_asks;
use gpu_share_core::{bin_pack, select_mechanism, ClusterGpuCaps, FractionalAsk, Scenario, Share};
use proptest::prelude::*;

/// Text that is often almost valid: fragments of the grammars glued together, plus anything at all.
fn grammar_text() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        ":",
        "0.5",
        "1/3",
        "25%",
        "3g.20gb",
        "1g.5gb+me",
        ",",
        "\n",
        "\"",
        "{",
        "}",
        "[",
        "]",
        "\"name\"",
        "\"fraction\"",
        "-",
        ".",
        "%",
        "/",
        "0",
        "9999999",
        "1e9",
        "&",
        "=",
        "ask",
        "gpus",
        "mig-capable",
        "%ZZ",
        "\u{0}",
        "é",
        "🙂",
        "\"v\":1",
        "\"kind\":\"usage\"",
        "\"release\"",
        "NaN",
        " ",
        "#",
    ]);
    prop_oneof![
        prop::collection::vec(pieces, 0..24).prop_map(|v| v.concat()),
        any::<String>()
    ]
}

fn caps() -> impl Strategy<Value = ClusterGpuCaps> {
    let models = prop::option::of(prop::sample::select(vec![
        "a100-40gb",
        "h200",
        "a30",
        "t4",
        "rtx-pro-6000",
        "Voodoo",
        "",
    ]));
    let profiles = prop::option::of(prop::collection::vec(
        prop::sample::select(vec![
            "1g.5gb",
            "2g.10gb",
            "3g.20gb",
            "1g.6gb",
            "3g.71gb",
            "9g.9gb",
            "2g.48gb-me",
        ]),
        0..4,
    ));
    (
        any::<[bool; 3]>(),
        models,
        profiles,
        prop::option::of(0u64..5),
    )
        .prop_map(|(f, model, profiles, count)| ClusterGpuCaps {
            supports_mig: f[0],
            supports_mps: f[1],
            supports_timeslicing: f[2],
            gpu_model: model.map(String::from),
            mig_profiles: profiles.map(|p| p.into_iter().map(String::from).collect()),
            gpu_count: count,
        })
}

fn ask() -> impl Strategy<Value = Option<FractionalAsk>> {
    let name = prop_oneof![
        Just("a".to_string()),
        Just("a".to_string()),
        "[a-c]{1,2}",
        any::<String>()
    ];
    let size = prop_oneof![
        (1u64..3 * Share::ONE.units()).prop_map(|u| Ok(Share::from_units(u))),
        // Beyond what one ask may take: rejected, never planned.
        (100_001 * Share::ONE.units()..u64::MAX).prop_map(|u| Ok(Share::from_units(u))),
        prop::sample::select(vec![
            "1g.5gb",
            "1g.5gb+me",
            "3g.20gb",
            "4g.20gb",
            "7g.40gb",
            "2g.12gb",
            "1g.24gb+me.all",
            "8g.99gb"
        ])
        .prop_map(|p| Err(p.to_string())),
    ];
    (name, size).prop_map(|(name, size)| match size {
        Ok(share) => FractionalAsk::fraction(&name, share).ok(),
        Err(profile) => FractionalAsk::mig(&name, &profile).ok(),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn text_readers_never_panic(text in grammar_text()) {
        let _ = Share::parse(&text);
        let _ = FractionalAsk::parse_spec(&text);
        let _ = parse_asks(&text);
        let _ = Scenario::from_query(&text);
        if let Ok(entries) = parse_ledger(&text) {
            if let Ok(usages) = resolve(&entries, i64::MAX) {
                let _ = summarize(&usages, &Rates::default());
            }
        }
        let _ = gpu_share_core::parse::parse_hours(&text);
    }

    #[test]
    fn floats_never_panic(f in any::<f64>()) {
        let _ = Share::from_f64(f);
    }

    #[test]
    fn planning_and_packing_never_panic(asks in prop::collection::vec(ask(), 0..30), caps in caps()) {
        let asks: Vec<FractionalAsk> = asks.into_iter().flatten().collect();
        for a in &asks {
            let _ = select_mechanism(a, &caps);
        }
        if let Ok(r) = bin_pack(&asks, caps.gpu_count, &caps) {
            prop_assert!(r.unplaced.len() <= asks.len());
        }
    }
}
