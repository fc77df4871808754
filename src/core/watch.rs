//! The Watch panel as a plain value: a bounded, newest-first timeline of action records.
//!
//! [`WatchModel`] holds the rows, the gate filter and the count per gate; `web::watch` only turns
//! it into DOM. Every string a row shows (time, outcome, duration) is made here ([`WatchRow`]),
//! so the panel's rules are host-tested without a browser. Each row also carries an opaque
//! payload `T` chosen by the host (in the browser: the JS record object and the row's element),
//! which is how JSON Lines are produced: the host serializes each kept record exactly as
//! `onActionRecord` got it.

use super::control::Control;
use super::grant::Grant;
use super::record::{ActionRecord, Gate, RecordOutcome, Via};

/// How many rows the panel keeps by default: a long session must not grow the page without
/// limit. Counts keep going; only the oldest rows are dropped.
pub const WATCH_ROWS_MAX: usize = 500;

/// The gates a record can carry, in the order the panel's filter lists them
/// (`needs_confirmation` is never recorded).
pub const RECORD_GATES: [Gate; 6] = [
    Gate::Fired,
    Gate::Confirmed,
    Gate::NeedsHandMode,
    Gate::Cancelled,
    Gate::Timeout,
    Gate::Rejected,
];

/// What one row of the timeline shows, as text.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchRow<'a> {
    /// Local wall-clock time of settlement, `HH:MM:SS.mmm`.
    pub time: String,
    /// Action name as called.
    pub action: &'a str,
    /// Effective level (the control badge).
    pub control: Control,
    /// Terminal gate (the gate badge).
    pub gate: Gate,
    /// The door the call came through (`invoke`, `tool_call`, `webmcp`).
    pub via: Via,
    /// `ok`, `error: <code>`, or `not run: <reason>`; a passkey-verified call adds
    /// ` · passkey <credentialId>`.
    pub outcome: String,
    /// Settled minus started, e.g. `12 ms`, `3.4 s`, `2 min 5 s`.
    pub duration: String,
}

impl<'a> WatchRow<'a> {
    /// The row for `record`; `tz_offset_minutes` is JavaScript's `Date#getTimezoneOffset()`
    /// (minutes to *add* to local time to get UTC; 0 gives UTC).
    pub fn from_record<R>(record: &'a ActionRecord<R>, tz_offset_minutes: f64) -> Self {
        WatchRow {
            time: time_text(record.settled_at, tz_offset_minutes),
            action: &record.action,
            control: record.control,
            gate: record.gate,
            via: record.via,
            outcome: match &record.verification {
                // The passkey that confirmed it, by its id (SPEC §4.1).
                Some(v) => format!(
                    "{} · passkey {}",
                    outcome_text(&record.outcome, record.reason),
                    v.credential_id
                ),
                None => outcome_text(&record.outcome, record.reason),
            },
            duration: duration_text(record.settled_at - record.started_at),
        }
    }

    /// The texts of the row's cells, in the order the panel shows them: time, action, control,
    /// gate, via, outcome, duration.
    pub fn cells(&self) -> [&str; 7] {
        [
            &self.time,
            self.action,
            self.control.as_str(),
            self.gate.as_str(),
            self.via.as_str(),
            &self.outcome,
            &self.duration,
        ]
    }
}

/// What one row of the panel's list of live grants (SPEC §12) shows, as text; its `match` is
/// shown by the host as the JSON the app gave.
#[derive(Clone, Debug, PartialEq)]
pub struct GrantRow<'a> {
    /// The soft action it covers.
    pub action: &'a str,
    /// `used once`, `used 3 times`, `1 of 5 uses`, `not used yet`.
    pub uses: String,
    /// `until 14:32:10`, local time.
    pub until: String,
}

impl<'a> GrantRow<'a> {
    /// The row for `grant`; `tz_offset_minutes` as in [`WatchRow::from_record`].
    pub fn from_grant(grant: &'a Grant, tz_offset_minutes: f64) -> Self {
        let uses = match (grant.max_uses, grant.uses) {
            (Some(max), n) => format!("{n} of {max} uses"),
            (None, 0) => "not used yet".into(),
            (None, 1) => "used once".into(),
            (None, n) => format!("used {n} times"),
        };
        let (hours, minutes, seconds, _) = clock(grant.expires_at, tz_offset_minutes);
        GrantRow {
            action: &grant.action,
            uses,
            until: format!("until {hours:02}:{minutes:02}:{seconds:02}"),
        }
    }
}

/// What a [`WatchModel::push`] changed.
#[derive(Debug, PartialEq)]
pub struct Pushed<T> {
    /// Whether the new row passes the current filter (the host shows or hides it).
    pub visible: bool,
    /// The oldest row's payload, dropped to keep the cap; the host removes its DOM.
    pub evicted: Option<T>,
}

/// The Watch panel: rows newest first, capped; a filter by gate; a count per gate. A row is its
/// gate and the host's payload `T` (in the browser: the record as delivered, and its element);
/// what it shows is [`WatchRow`]'s, made once when it is drawn.
#[derive(Debug)]
pub struct WatchModel<T> {
    /// Oldest first. A plain list: at the cap, dropping the oldest shifts the rest down, a copy
    /// of a few words per row.
    rows: Vec<(Gate, T)>,
    cap: usize,
    filter: Option<Gate>,
    /// Records seen since the panel was mounted, per gate (by its number, `gate as usize`);
    /// not reduced when old rows are dropped.
    counts: [u64; Gate::ALL.len()],
}

impl<T> Default for WatchModel<T> {
    fn default() -> Self {
        WatchModel::new(WATCH_ROWS_MAX)
    }
}

impl<T> WatchModel<T> {
    /// An empty panel that keeps at most `cap` rows (at least one).
    pub fn new(cap: usize) -> Self {
        WatchModel {
            rows: Vec::new(),
            cap: cap.max(1),
            filter: None,
            counts: [0; Gate::ALL.len()],
        }
    }

    /// Adds the newest row; drops the oldest beyond the cap.
    pub fn push(&mut self, gate: Gate, payload: T) -> Pushed<T> {
        self.counts[gate as usize] += 1;
        self.rows.push((gate, payload));
        let evicted = if self.rows.len() > self.cap {
            Some(self.rows.remove(0).1)
        } else {
            None
        };
        Pushed {
            visible: self.matches(gate),
            evicted,
        }
    }

    /// The kept rows (gate and payload), newest first (the order the timeline shows).
    pub fn rows(&self) -> impl Iterator<Item = &(Gate, T)> {
        self.rows.iter().rev()
    }

    /// The kept rows that pass the filter, newest first.
    pub fn visible(&self) -> impl Iterator<Item = &(Gate, T)> {
        self.rows().filter(|(gate, _)| self.matches(*gate))
    }

    /// How many rows are kept (at most the cap).
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether no row is kept.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Shows only rows with this gate; `None` shows all.
    pub fn set_filter(&mut self, gate: Option<Gate>) {
        self.filter = gate;
    }

    /// The current filter.
    pub fn filter(&self) -> Option<Gate> {
        self.filter
    }

    /// Whether a row with this gate passes the filter.
    pub fn matches(&self, gate: Gate) -> bool {
        !matches!(self.filter, Some(f) if f != gate)
    }

    /// Records with this gate seen since the panel was mounted (dropped rows included).
    pub fn count(&self, gate: Gate) -> u64 {
        self.counts[gate as usize]
    }

    /// Records seen since the panel was mounted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The payloads of the rows that pass the filter, oldest first (log order).
    pub fn passing(&self) -> impl Iterator<Item = &T> {
        self.rows
            .iter()
            .filter(|(gate, _)| self.matches(*gate))
            .map(|(_, payload)| payload)
    }
}

/// Each of `lines` followed by `\n`: JSON Lines, when each is one line of JSON (with no newline
/// in it), as the panel's are, one per record that [`WatchModel::passing`] gives. Empty when
/// there is no line.
pub fn lines(lines: impl Iterator<Item = String>) -> String {
    let mut out = String::new();
    for line in lines {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `ok`, `error: <code>`, `not run: <reason>` (or `not run` without a reason).
pub fn outcome_text<R>(outcome: &RecordOutcome<R>, reason: Option<&str>) -> String {
    match (outcome, reason) {
        (RecordOutcome::Ok { .. }, _) => "ok".into(),
        (RecordOutcome::Error { code, .. }, _) => {
            let mut s = String::from("error: ");
            s.push_str(code);
            s
        }
        (RecordOutcome::NotRun, Some(reason)) => {
            let mut s = String::from("not run: ");
            s.push_str(reason);
            s
        }
        (RecordOutcome::NotRun, None) => "not run".into(),
    }
}

/// A duration for people: `0 ms`…`999 ms`, `1.0 s`…`59.9 s` (tenths, truncated), then
/// `1 min 0 s`. Negative or non-finite input reads as `0 ms`.
pub fn duration_text(ms: f64) -> String {
    let ms = if ms.is_finite() && ms > 0.0 {
        ms.round() as u64
    } else {
        0
    };
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{}.{} s", ms / 1000, ms % 1000 / 100)
    } else {
        let secs = ms / 1000;
        format!("{} min {} s", secs / 60, secs % 60)
    }
}

/// `HH:MM:SS.mmm` of an epoch-ms instant, shifted to local time by JavaScript's
/// `getTimezoneOffset()` (UTC minus local, in minutes). Non-finite input reads as midnight.
pub fn time_text(epoch_ms: f64, tz_offset_minutes: f64) -> String {
    let (hours, minutes, seconds, ms) = clock(epoch_ms, tz_offset_minutes);
    format!("{hours:02}:{minutes:02}:{seconds:02}.{ms:03}")
}

/// The hours, minutes, seconds and milliseconds of [`time_text`].
fn clock(epoch_ms: f64, tz_offset_minutes: f64) -> (u64, u64, u64, u64) {
    let local = epoch_ms - tz_offset_minutes * 60_000.0;
    let local = if local.is_finite() { local } else { 0.0 };
    // JS dates lie within ±8.64e15 ms, well inside i64 (`as` saturates beyond).
    let day_ms = (local.floor() as i64).rem_euclid(86_400_000) as u64;
    (
        day_ms / 3_600_000,
        day_ms / 60_000 % 60,
        day_ms / 1000 % 60,
        day_ms % 1000,
    )
}
