//! Tests of the ask-list readers: CSV with and without a header, JSON, durations, model rows.

#[test]
fn hours_text_reads_back_to_the_same_second() {
    assert_eq!(super::hours_text(7200), "2");
    assert_eq!(super::hours_text(5400), "1.5");
    assert_eq!(super::hours_text(1), "0.0002778");
    assert_eq!(super::hours_text(0), "0");
    for s in (0..200_000).chain([31_536_000, 315_359_999]) {
        let text = super::hours_text(s);
        if s > 0 {
            assert_eq!(super::parse_hours(&text).unwrap(), s, "{text}");
        }
    }
}

use super::*;

#[test]
fn csv_with_and_without_header() {
    let plain = parse_asks("a,0.5,2\nb,3g.20gb\n# comment\n\n\"c, quoted\",25%,0.5\n").unwrap();
    assert_eq!(plain.len(), 3);
    assert_eq!(plain[0].seconds, Some(7200));
    assert_eq!(plain[1].ask.mig_profile(), Some("3g.20gb"));
    assert_eq!(plain[2].ask.name(), "c, quoted");
    let headed = parse_asks("seconds,name,fraction\n60,x,1/3\n").unwrap();
    assert_eq!(headed[0].seconds, Some(60));
    assert_eq!(
        headed[0].ask.requested_fraction(),
        Some(crate::units::Share::ratio(1, 3).unwrap())
    );
}

#[test]
fn csv_errors_name_line_and_field() {
    let err = parse_asks("a,0.5\nb,zero\n").unwrap_err();
    assert_eq!(
        (err.line, err.field.as_deref()),
        (Some(2), Some("fraction"))
    );
    let err = parse_asks("name,fraction\na,0.5\n,0.2\n").unwrap_err();
    assert_eq!((err.line, err.field.as_deref()), (Some(3), Some("name")));
    let err = parse_asks("a,0.5,-2\n").unwrap_err();
    assert_eq!(err.field.as_deref(), Some("hours"));
    assert!(parse_asks("\"open,0.5\n").is_err());
}

#[test]
#[cfg(feature = "serde")]
fn json_lists() {
    let list = parse_asks(
        r#"[{"name":"a","fraction":0.5,"hours":2},{"name":"x","mig_profile":"3g.20gb"}]"#,
    )
    .unwrap();
    assert_eq!(list[0].seconds, Some(7200));
    assert_eq!(list[1].ask.mig_profile(), Some("3g.20gb"));
    let wrapped = parse_asks(r#"{"asks":[{"name":"a","fraction":"25%"}]}"#).unwrap();
    assert_eq!(wrapped.len(), 1);
    let err = parse_asks(r#"[{"name":"a","fraction":0.5},{"name":"b"}]"#).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("asks[1]"));
    assert!(parse_asks("[1,2]").is_err());
    assert!(parse_asks("{\"asks\": 3}").is_err());
    assert!(parse_asks("[{").unwrap_err().line.is_some());
}

#[test]
fn durations() {
    assert_eq!(parse_hours("2").unwrap(), 7200);
    assert_eq!(parse_hours("0.5").unwrap(), 1800);
    for bad in ["", "-1", "abc", "inf", "NaN", "1e3", "999999"] {
        assert!(parse_hours(bad).is_err(), "{bad}");
    }
    assert_eq!(parse_seconds("7200").unwrap(), 7200);
    assert!(parse_seconds("-5").is_err());
}

#[test]
fn csv_model_rows_are_kept_apart_with_their_paths() {
    let text = "name,size,model,context,concurrency\nnotebook,0.25\nchat,,models/llama.json,8192,16\ncode,,qwen.json,,\n";
    let list = parse_ask_list(text).unwrap();
    assert_eq!(list.asks.len(), 1);
    assert_eq!(
        list.models,
        [
            ListedModel {
                name: "chat".into(),
                config_path: "models/llama.json".into(),
                context: Some(8192),
                concurrency: Some(16),
                line: 3,
            },
            ListedModel {
                name: "code".into(),
                config_path: "qwen.json".into(),
                context: None,
                concurrency: None,
                line: 4,
            },
        ]
    );
    // Where only asks are taken, a model row is an error at its line, not dropped.
    let err = parse_asks(text).unwrap_err();
    assert_eq!((err.line, err.field.as_deref()), (Some(3), Some("model")));
    let both = parse_ask_list("name,size,model\nx,0.5,m.json\n").unwrap_err();
    assert_eq!((both.line, both.field.as_deref()), (Some(2), Some("model")));
    let bad = parse_ask_list("name,model,concurrency\nx,m.json,0\n").unwrap_err();
    assert_eq!(bad.field.as_deref(), Some("concurrency"));
    let unnamed = parse_ask_list("name,model\n,m.json\n").unwrap_err();
    assert_eq!(unnamed.field.as_deref(), Some("name"));
}
