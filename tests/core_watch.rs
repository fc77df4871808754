#![cfg(not(target_arch = "wasm32"))]
//! Host tests of the Watch panel's plain model: row text, filter, counts, cap, JSON Lines.

use std::rc::Rc;

use coworkkit::core::control::{Control, ControlSource};
use coworkkit::core::record::{ActionRecord, Gate, RecordOutcome, Via};
use coworkkit::core::value::Value;
use coworkkit::core::watch::{
    duration_text, lines, outcome_text, time_text, Pushed, WatchModel, WatchRow, RECORD_GATES,
    WATCH_ROWS_MAX,
};
use proptest::prelude::*;

fn record(n: u32, gate: Gate, outcome: RecordOutcome<String>) -> ActionRecord<String> {
    ActionRecord {
        v: 1,
        seq: n.into(),
        session_id: "s".into(),
        call_id: format!("call_{n}"),
        action: format!("action{n}"),
        control: Control::Hard,
        control_source: ControlSource::Declared,
        gate,
        outcome,
        args: Rc::new(Value::Object(vec![("n".into(), Value::Number(n.into()))])),
        snapshot: None,
        via: Via::WebMcp,
        verification: None,
        approver: None,
        reason: None,
        started_at: 1_700_000_000_000.0,
        settled_at: 1_700_000_000_250.0,
        note: None,
        grant: None,
        call: None,
    }
}

/// A row's payload: the record's number, and its JSON line as the browser's `JSON.stringify`
/// would give it.
type Line = (u32, String);

/// Pushes record `n` with `gate`, its payload a [`Line`].
fn push(model: &mut WatchModel<Line>, n: u32, gate: Gate) -> Pushed<Line> {
    let line = format!("{{\"id\":\"s.{n}\",\"gate\":\"{}\"}}", gate.as_str());
    model.push(gate, (n, line))
}

/// The numbers of the records of `rows`, in their order.
fn numbers<'a>(rows: impl Iterator<Item = &'a (Gate, Line)>) -> Vec<u32> {
    rows.map(|(_, (n, _))| *n).collect()
}

#[test]
fn a_row_shows_time_action_control_gate_outcome_and_duration() {
    let mut r = record(
        7,
        Gate::Confirmed,
        RecordOutcome::Ok {
            value: Some("v".into()),
        },
    );
    let row = WatchRow::from_record(&r, 0.0);
    // 1_700_000_000_250 ms = 2023-11-14T22:13:20.250Z
    assert_eq!(row.time, "22:13:20.250");
    assert_eq!(row.action, "action7");
    assert_eq!(row.control, Control::Hard);
    assert_eq!(row.gate, Gate::Confirmed);
    assert_eq!(row.via, Via::WebMcp);
    assert_eq!(row.outcome, "ok");
    assert_eq!(row.duration, "250 ms");
    assert_eq!(
        row.cells(),
        [
            "22:13:20.250",
            "action7",
            "hard",
            "confirmed",
            "webmcp",
            "ok",
            "250 ms"
        ]
    );

    // Central European winter time: getTimezoneOffset() = -60.
    assert_eq!(WatchRow::from_record(&r, -60.0).time, "23:13:20.250");
    // US Pacific: +480 wraps to the previous day's 14:13.
    assert_eq!(WatchRow::from_record(&r, 480.0).time, "14:13:20.250");

    r.outcome = RecordOutcome::Error {
        code: "element_unavailable",
        message: "gone".into(),
    };
    assert_eq!(
        WatchRow::from_record(&r, 0.0).outcome,
        "error: element_unavailable"
    );
    r.outcome = RecordOutcome::NotRun;
    r.reason = Some("hand_mode_off");
    assert_eq!(
        WatchRow::from_record(&r, 0.0).outcome,
        "not run: hand_mode_off"
    );
}

#[test]
fn outcome_text_without_a_reason() {
    assert_eq!(outcome_text::<()>(&RecordOutcome::NotRun, None), "not run");
    assert_eq!(
        outcome_text::<()>(&RecordOutcome::Ok { value: None }, Some("ignored")),
        "ok"
    );
}

#[test]
fn durations_read_like_people_speak() {
    assert_eq!(duration_text(0.0), "0 ms");
    assert_eq!(duration_text(0.4), "0 ms");
    assert_eq!(duration_text(12.6), "13 ms");
    assert_eq!(duration_text(999.0), "999 ms");
    assert_eq!(duration_text(1000.0), "1.0 s");
    assert_eq!(duration_text(3456.0), "3.4 s");
    assert_eq!(duration_text(59_999.0), "59.9 s");
    assert_eq!(duration_text(60_000.0), "1 min 0 s");
    assert_eq!(duration_text(125_000.0), "2 min 5 s");
    assert_eq!(duration_text(-5.0), "0 ms");
    assert_eq!(duration_text(f64::NAN), "0 ms");
    assert_eq!(duration_text(f64::INFINITY), "0 ms");
}

#[test]
fn times_are_zero_padded_and_wrap_the_day() {
    assert_eq!(time_text(0.0, 0.0), "00:00:00.000");
    assert_eq!(time_text(3_723_004.0, 0.0), "01:02:03.004");
    assert_eq!(time_text(0.0, 60.0), "23:00:00.000");
    assert_eq!(time_text(f64::NAN, 0.0), "00:00:00.000");
    assert_eq!(time_text(86_399_999.0, 0.0), "23:59:59.999");
}

#[test]
fn rows_are_newest_first() {
    let mut model = WatchModel::default();
    for n in 0..3 {
        push(&mut model, n, Gate::Fired);
    }
    assert_eq!(numbers(model.rows()), [2, 1, 0]);
    assert_eq!(model.len(), 3);
    assert!(!model.is_empty());
}

#[test]
fn the_filter_shows_one_gate_and_none_shows_all() {
    let mut model = WatchModel::default();
    let gates = [Gate::Fired, Gate::Rejected, Gate::Fired, Gate::Cancelled];
    for (n, gate) in gates.iter().enumerate() {
        assert!(
            push(&mut model, n as u32, *gate).visible,
            "no filter: all visible"
        );
    }
    model.set_filter(Some(Gate::Fired));
    assert_eq!(model.filter(), Some(Gate::Fired));
    assert_eq!(numbers(model.visible()), [2, 0]);
    assert!(model.matches(Gate::Fired));
    assert!(!model.matches(Gate::Rejected));
    assert!(!push(&mut model, 9, Gate::Timeout).visible);
    assert!(push(&mut model, 10, Gate::Fired).visible);
    model.set_filter(None);
    assert_eq!(model.visible().count(), 6);
}

#[test]
fn counts_are_per_gate_and_survive_the_cap() {
    let mut model = WatchModel::new(4);
    for n in 0..10 {
        let gate = if n % 2 == 0 {
            Gate::Fired
        } else {
            Gate::NeedsHandMode
        };
        push(&mut model, n, gate);
    }
    assert_eq!(model.count(Gate::Fired), 5);
    assert_eq!(model.count(Gate::NeedsHandMode), 5);
    assert_eq!(model.count(Gate::Timeout), 0);
    assert_eq!(model.count(Gate::NeedsConfirmation), 0);
    assert_eq!(model.total(), 10);
    assert_eq!(model.len(), 4);
}

#[test]
fn the_cap_drops_the_oldest_row_and_hands_it_back() {
    let mut model = WatchModel::default();
    for n in 0..WATCH_ROWS_MAX as u32 {
        assert_eq!(push(&mut model, n, Gate::Fired).evicted, None);
    }
    let pushed = push(&mut model, WATCH_ROWS_MAX as u32, Gate::Fired);
    assert_eq!(pushed.evicted.map(|(n, _)| n), Some(0));
    for n in 0..2000 {
        push(&mut model, 1000 + n, Gate::Fired);
    }
    assert_eq!(model.len(), WATCH_ROWS_MAX);
    let kept = numbers(model.rows());
    assert_eq!((kept[0], kept[WATCH_ROWS_MAX - 1]), (2999, 2500));
    // A zero cap still keeps the newest row.
    let mut tiny = WatchModel::new(0);
    push(&mut tiny, 1, Gate::Fired);
    push(&mut tiny, 2, Gate::Fired);
    assert_eq!(numbers(tiny.rows()), [2]);
}

/// The panel's JSON Lines, as the web layer prints them: one line per payload that passes.
fn json_lines(model: &WatchModel<Line>) -> String {
    lines(model.passing().map(|(_, line)| line.clone()))
}

#[test]
fn json_lines_are_the_kept_filtered_payloads_oldest_first() {
    let mut model = WatchModel::new(3);
    assert_eq!(json_lines(&model), "");
    for (n, gate) in [Gate::Fired, Gate::Rejected, Gate::Fired, Gate::Fired]
        .into_iter()
        .enumerate()
    {
        push(&mut model, n as u32, gate);
    }
    assert_eq!(
        json_lines(&model),
        "{\"id\":\"s.1\",\"gate\":\"rejected\"}\n\
         {\"id\":\"s.2\",\"gate\":\"fired\"}\n\
         {\"id\":\"s.3\",\"gate\":\"fired\"}\n"
    );
    model.set_filter(Some(Gate::Rejected));
    assert_eq!(
        json_lines(&model),
        "{\"id\":\"s.1\",\"gate\":\"rejected\"}\n"
    );
    for line in json_lines(&model).lines() {
        assert!(
            serde_json::from_str::<Value>(line).is_ok(),
            "each line is JSON: {line}"
        );
    }
}

#[test]
fn the_filter_lists_every_recorded_gate_once() {
    assert_eq!(RECORD_GATES.len(), 6);
    assert!(!RECORD_GATES.contains(&Gate::NeedsConfirmation));
    for gate in RECORD_GATES {
        assert!(gate.is_terminal());
    }
}

proptest! {
    #[test]
    fn never_more_than_the_cap_and_counts_add_up(
        cap in 1usize..20,
        gates in prop::collection::vec(0usize..6, 0..80),
        filter in prop::option::of(0usize..6),
    ) {
        let mut model = WatchModel::new(cap);
        model.set_filter(filter.map(|i| RECORD_GATES[i]));
        for (n, g) in gates.iter().enumerate() {
            push(&mut model, n as u32, RECORD_GATES[*g]);
            prop_assert!(model.len() <= cap);
        }
        prop_assert_eq!(model.total(), gates.len() as u64);
        let per_gate: u64 = RECORD_GATES.iter().map(|g| model.count(*g)).sum();
        prop_assert_eq!(per_gate, gates.len() as u64);
        prop_assert_eq!(model.len(), gates.len().min(cap));
        let kept = model.visible().count();
        prop_assert_eq!(json_lines(&model).lines().count(), kept);
        prop_assert!(model.visible().all(|(gate, _)| model.matches(*gate)));
    }
}

#[test]
fn a_grant_row_says_what_it_covers_how_often_it_was_used_and_until_when() {
    use coworkkit::core::grant::Grant;
    use coworkkit::core::ids::GrantId;
    use coworkkit::core::watch::GrantRow;
    let mut grant = Grant {
        id: GrantId::parse("ckg_3").unwrap(),
        action: "archiveThread".into(),
        created_at: 0.0,
        // 14:32:10.900 UTC on some day.
        expires_at: 1_700_000_000_000.0 - 1_700_000_000_000.0 % 86_400_000.0 + 52_330_900.0,
        max_uses: None,
        uses: 0,
        match_args: Vec::new(),
    };
    let row = GrantRow::from_grant(&grant, 0.0);
    assert_eq!(
        (row.action, row.uses.as_str(), row.until.as_str()),
        ("archiveThread", "not used yet", "until 14:32:10")
    );
    assert_eq!(GrantRow::from_grant(&grant, 60.0).until, "until 13:32:10");
    grant.uses = 1;
    assert_eq!(GrantRow::from_grant(&grant, 0.0).uses, "used once");
    grant.uses = 3;
    assert_eq!(GrantRow::from_grant(&grant, 0.0).uses, "used 3 times");
    grant.max_uses = Some(5);
    assert_eq!(GrantRow::from_grant(&grant, 0.0).uses, "3 of 5 uses");
}
