//! Rows read into asks, the scenario's signals and memos, and what the page keeps of a plan.

use super::*;
use gpu_share_core::api;

fn row(name: &str, kind: SizeKind, fraction: &str, profile: &str) -> RowText {
    RowText {
        name: name.into(),
        kind,
        fraction: fraction.into(),
        memory: String::new(),
        profile: profile.into(),
        hours: String::new(),
    }
}

#[test]
fn rows_with_memory_build_memory_asks() {
    let with = |fraction: &str, memory: &str| RowText {
        memory: memory.into(),
        ..row("m", SizeKind::Fraction, fraction, "")
    };
    assert_eq!(with("", "12GiB").ask().unwrap().to_spec(), "m:12GiB");
    assert_eq!(
        with("0.25", "12GiB").ask().unwrap().to_spec(),
        "m:0.25:12GiB"
    );
    let bad = with("", "12 apples").ask().unwrap_err();
    assert_eq!(bad.field.as_deref(), Some("memory"));
    let none = with("", "").ask().unwrap_err();
    assert_eq!(none.field.as_deref(), Some("fraction"));
    // A fraction cell never holds memory.
    assert_eq!(
        with("12GiB", "").ask().unwrap_err().field.as_deref(),
        Some("fraction")
    );
    let ask = FractionalAsk::parse_spec("n:0.5:1GiB").unwrap();
    let back = RowText::from_ask(&ask, None);
    assert_eq!(
        (back.fraction.as_str(), back.memory.as_str()),
        ("0.5", "1GiB")
    );
}

#[test]
fn rows_build_asks_through_the_core() {
    let a = row("a", SizeKind::Fraction, "25%", "").ask().unwrap();
    assert_eq!(a.to_spec(), "a:0.25");
    let x = row("x", SizeKind::Mig, "", "3g.20gb").ask().unwrap();
    assert_eq!(x.mig_profile(), Some("3g.20gb"));
    assert_eq!(
        row("", SizeKind::Fraction, "0.5", "")
            .ask()
            .unwrap_err()
            .field
            .as_deref(),
        Some("name")
    );
    assert_eq!(
        row("a", SizeKind::Fraction, "zero", "")
            .ask()
            .unwrap_err()
            .field
            .as_deref(),
        Some("fraction")
    );
    assert_eq!(
        row("a", SizeKind::Fraction, "0", "")
            .ask()
            .unwrap_err()
            .field
            .as_deref(),
        Some("fraction")
    );
    assert_eq!(
        row("a", SizeKind::Mig, "", "")
            .ask()
            .unwrap_err()
            .field
            .as_deref(),
        Some("mig_profile")
    );
    // A profile typed as a fraction is not silently read as a profile.
    assert!(row("a", SizeKind::Fraction, "3g.20gb", "").ask().is_err());
}

#[test]
fn rows_round_trip_asks() {
    for spec in [
        "a:0.5",
        "ns:job:0.3333",
        "x:3g.20gb",
        "<img src=x onerror=alert(1)>:1/4",
        "big:2",
    ] {
        let ask = FractionalAsk::parse_spec(spec).unwrap();
        let t = RowText::from_ask(&ask, Some(5400));
        assert_eq!(t.hours, "1.5");
        assert_eq!(t.ask().unwrap(), ask, "{spec}");
    }
}

#[test]
fn the_plan_is_the_cores_answer_to_the_pages_request() {
    let s = AppState::new("ask=a:0.5&ask=b:0.4&ask=c:0.4&ask=d:0.3&ask=e:0.2&ask=f:0.2&timeslice");
    s.asks
        .rows
        .with_untracked(|rows| rows[0].hours.set("2".into()));
    let request = s.planned.request.get_untracked();
    assert_eq!(request.asks.len(), 6);
    assert_eq!(request.asks[0].seconds, Some(7200));
    assert_eq!(request.asks[1].seconds, None);
    assert_eq!(request.options.optimize_ms(), None);
    let plan = s.planned.plan.get_untracked().unwrap();
    assert_eq!(plan, api::pack(&request).unwrap());
    assert_eq!((plan.result.gpus_used, plan.optimize), (3, None));
    // Optimize: the request carries the page's budget; the response says how it did.
    s.form.optimize.set(true);
    let request = s.planned.request.get_untracked();
    assert_eq!(request.options.optimize_ms(), Some(OPTIMIZE_MS));
    let plan = s.planned.plan.get_untracked().unwrap();
    assert_eq!(plan.result.gpus_used, 2);
    let report = plan.optimize.unwrap();
    assert_eq!((report.ffd_gpus, report.proven_optimal), (3, true));
    // A row with an error is left out of the request.
    s.asks
        .rows
        .with_untracked(|rows| rows[1].fraction.set("zero".into()));
    assert_eq!(s.planned.request.get_untracked().asks.len(), 5);
    assert_eq!(s.asks.invalid_rows.get_untracked(), 1);
}

#[test]
fn a_bad_row_is_marked_and_the_rest_still_planned() {
    // A name used twice and a profile the model lacks: both rows left out, the others planned.
    let s = AppState::new(
        "ask=a:0.5&ask=a:0.25&ask=x:3g.40gb&ask=y:1g.5gb&mig-capable&gpu-model=A100-SXM4-40GB",
    );
    let plan = s.planned.plan.get_untracked().unwrap();
    let planned: Vec<&str> = plan
        .result
        .choices
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(planned, ["a", "y"]);
    let ids: Vec<u64> = s
        .asks
        .rows
        .with_untracked(|r| r.iter().map(|r| r.id).collect());
    let out: Vec<(u64, Option<&str>)> = s
        .planned
        .left_out
        .get_untracked()
        .iter()
        .map(|(id, l)| (*id, l.error.field.as_deref()))
        .collect::<Vec<_>>()
        .into_iter()
        .map(|(id, f)| {
            (
                id,
                f.map(|f| if f == "name" { "name" } else { "mig_profile" }),
            )
        })
        .collect();
    assert_eq!(out, [(ids[1], Some("name")), (ids[2], Some("mig_profile"))]);
    // A row the page cannot read is not sent at all; the ids still line up after it.
    s.asks
        .rows
        .with_untracked(|r| r[0].fraction.set("zero".into()));
    let out: Vec<u64> = s
        .planned
        .left_out
        .get_untracked()
        .iter()
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(
        out,
        [ids[2]],
        "a is now unread, so the second a is no duplicate"
    );
}

#[test]
fn a_broken_link_loads_what_it_can_and_says_what_it_dropped() {
    let s = AppState::new("ask=a:zero&ask=b:0.5&gpus=2&timeslice");
    assert_eq!(s.asks.rows.with_untracked(Vec::len), 1);
    let dropped = s.ui.link_dropped.get_untracked();
    assert_eq!(dropped.len(), 1);
    assert!(dropped[0].contains("fraction"), "{dropped:?}");
    assert_eq!(s.planned.plan.get_untracked().unwrap().result.gpus_used, 1);
    assert!(!s.link.is_example.get_untracked());
}

#[test]
fn the_example_is_marked_until_changed_or_cleared() {
    let s = AppState::new("");
    assert!(s.link.is_example.get_untracked());
    s.asks.rows.with_untracked(|r| r[0].hours.set("2".into()));
    assert!(
        !s.link.is_example.get_untracked(),
        "hours change the scenario"
    );
    assert!(s
        .link
        .scenario
        .get_untracked()
        .to_query()
        .contains("&hours=2&"));
    s.clear();
    assert!(s.asks.rows.with_untracked(Vec::is_empty));
    assert!(!s.link.is_example.get_untracked());
    // Hours from the link come back in their rows.
    let s = AppState::new("ask=a:0.5&ask=b:1/3&hours=,1.5&timeslice");
    let texts: Vec<(String, String)> = s.asks.rows.with_untracked(|r| {
        r.iter()
            .map(|r| (r.fraction.get_untracked(), r.hours.get_untracked()))
            .collect()
    });
    assert_eq!(
        texts,
        [("0.5".into(), String::new()), ("1/3".into(), "1.5".into())]
    );
}

#[test]
fn a_gpu_count_the_page_cannot_read_is_not_planned_as_unlimited() {
    let s = AppState::new("ask=a:0.5&timeslice");
    s.form.gpu_count.set("-1".into());
    let e = s.planned.plan.get_untracked().unwrap_err();
    assert_eq!(e.field.as_deref(), Some("gpu_count"));
    s.form.gpu_count.set("0".into());
    let e = s.planned.plan.get_untracked().unwrap_err();
    assert_eq!(
        e.field.as_deref(),
        Some("gpu_count"),
        "the core's range check"
    );
    s.form.gpu_count.set("1".into());
    assert!(s.planned.plan.get_untracked().is_ok());
}

#[test]
fn durations() {
    assert_eq!(build_seconds(""), Ok(None));
    assert_eq!(build_seconds("2"), Ok(Some(7200)));
    assert_eq!(
        build_seconds("-1").unwrap_err().field.as_deref(),
        Some("hours")
    );
}

/// The driver field: a named driver plans a MIG instance's memory with its listing (the
/// A100-SXM4-40GB's 2-slice instance is 9.75 GiB under driver 580.126.09, 9.62 GiB at the
/// smallest: docs/hardware-facts.md §1.6); text that is no version is the plan's error at it.
#[test]
fn the_driver_field_reaches_the_plan() {
    let s = AppState::new(
        "ask=m:9940MiB&gpu-model=A100-SXM4-40GB&mig-capable&context-overhead=0&driver=580.126.09",
    );
    assert_eq!(s.form.driver.get_untracked(), "580.126.09");
    let profile = |s: &AppState| {
        let plan = s.planned.plan.get_untracked().unwrap();
        plan.result.choices[0].mig_profile.clone().unwrap()
    };
    assert_eq!(profile(&s), "1g.10gb");
    s.form.driver.set(" ".into());
    assert_eq!(profile(&s), "3g.20gb");
    s.form.driver.set("latest".into());
    let e = s.planned.plan.get_untracked().unwrap_err();
    assert_eq!(e.field.as_deref(), Some("driver"));
}
