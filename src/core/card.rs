//! The hard confirmation card as a plain value, and the text rules behind it.
//!
//! [`CardModel`] is everything the card shows; `web::card` only turns it into DOM. Every string
//! the card displays is produced here, so the rules (title from an action name, summary cap and
//! fallback, countdown, "1 of N", who may confirm) are host-tested without a browser.

/// Longest summary the card shows, in Unicode scalar values (not bytes).
pub const SUMMARY_MAX_CHARS: usize = 500;

/// Longest reason a person gives with a "no" (SPEC §12), in Unicode scalar values.
pub const REASON_MAX_CHARS: usize = 200;

/// The card's button words, for localization: the instance's, given to the card layer once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labels {
    /// Text of the Confirm button.
    pub confirm: String,
    /// Text of the Cancel button.
    pub cancel: String,
    /// Text of the Confirm button on a `verify: "passkey"` card.
    pub confirm_passkey: String,
    /// The label of the optional reason field (SPEC §12).
    pub reason: String,
    /// Text of the button that cancels every waiting card; how many wait follows it.
    pub cancel_all: String,
}

impl Default for Labels {
    fn default() -> Labels {
        Labels {
            confirm: "Confirm".into(),
            cancel: "Cancel".into(),
            confirm_passkey: "Confirm with passkey".into(),
            reason: "Tell the assistant why (optional)".into(),
            cancel_all: "Cancel all".into(),
        }
    }
}

/// Everything one hard confirmation card shows, besides the button words ([`Labels`]).
#[derive(Clone, Debug, PartialEq)]
pub struct CardModel {
    /// Heading: the action's name made readable (see [`title_from_name`]).
    pub title: String,
    /// Body text, already capped and fallen back (see [`summary_text`]).
    pub summary: String,
    /// When the proposal expires, in epoch milliseconds; drives the countdown.
    pub expires_at: f64,
    /// 1-based place of this card among the waiting proposals.
    pub position: usize,
    /// How many proposals wait in all; "1 of N" is shown only when this is above 1.
    pub total: usize,
    /// False when the person at the keyboard may not confirm; Confirm is then disabled.
    pub confirm_allowed: bool,
    /// Extra line under the summary, e.g. [`approver_notice`] when `!confirm_allowed`.
    pub notice: Option<String>,
    /// Confirming also takes the person's passkey (`verify: "passkey"`): Confirm says so.
    pub passkey: bool,
}

impl CardModel {
    /// A card for the action `name`: title from the name, summary from
    /// [`summary_text`], shown alone ("1 of 1"), confirmable.
    pub fn new(
        name: &str,
        summary: Option<String>,
        description: &str,
        expires_at: f64,
    ) -> CardModel {
        CardModel {
            title: title_from_name(name),
            summary: summary_text(summary, description),
            expires_at,
            position: 1,
            total: 1,
            confirm_allowed: true,
            notice: None,
            passkey: false,
        }
    }

    /// Disables Confirm and says which roles may confirm (see [`approver_notice`]).
    pub fn restrict_to(mut self, approvers: &[String]) -> CardModel {
        self.confirm_allowed = false;
        self.notice = Some(approver_notice(approvers));
        self
    }
}

/// Makes an action name readable: words split on camelCase, `_`, `-`, `.` and spaces, the
/// first capitalised, the rest lower case, all-caps acronyms kept.
///
/// Action names are ASCII (SPEC §2), so ASCII case rules are all a name needs; any other
/// character passes through unchanged.
///
/// `"deleteProject"` → `"Delete project"`, `"purge_cache-v2"` → `"Purge cache v2"`,
/// `"exportCSVFile"` → `"Export CSV file"`.
pub fn title_from_name(name: &str) -> String {
    // Byte by byte: a word ends only at an ASCII byte or at the end, never inside a multi-byte
    // character, so every slice below is whole characters.
    let bytes = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut start = 0;
    for i in 0..=bytes.len() {
        // The end reads as one more separator.
        let c = bytes.get(i).copied().unwrap_or(b' ');
        let separator = matches!(c, b'_' | b'-' | b'.') || c.is_ascii_whitespace();
        // "deleteProject", "v2Cache", and the end of an acronym: "CSVFile" → "CSV" "File".
        let capital_starts_word = c.is_ascii_uppercase() && start < i && {
            let prev = bytes[i - 1];
            prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase()
                    && bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase))
        };
        if separator || capital_starts_word {
            if let Some(word) = name.get(start..i).filter(|w| !w.is_empty()) {
                push_title_word(&mut out, word);
            }
            start = i + usize::from(separator);
        }
    }
    out
}

/// Appends one word of [`title_from_name`]: an acronym (more than one capital, no lower case)
/// as it is, any other word in lower case, the title's first letter capitalised.
fn push_title_word(out: &mut String, word: &str) {
    let acronym = word.bytes().filter(u8::is_ascii_uppercase).count() > 1
        && !word.bytes().any(|c| c.is_ascii_lowercase());
    let at = out.len();
    if at > 0 {
        out.push(' ');
    }
    out.push_str(word);
    if acronym {
        return;
    }
    if let Some(added) = out.get_mut(at..) {
        added.make_ascii_lowercase();
    }
    if let Some(first) = out.get_mut(..1).filter(|_| at == 0) {
        first.make_ascii_uppercase();
    }
}

/// The text the card shows as its body.
///
/// A missing or blank `summary` falls back to `description`. Characters that could disguise the
/// text are removed: bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069, which
/// would let an argument such as a file name display reversed), zero-width and other invisible
/// format characters, and control characters other than newline and tab. So that nothing an
/// argument carries can push the app's own words out of sight (SPEC §4.2), runs of spaces and
/// tabs become one space, lines lose their leading and trailing spaces, runs of blank lines
/// become one blank line, and blank lines at either end go. The result is capped at
/// [`SUMMARY_MAX_CHARS`] characters (not bytes); a cut text ends with "…".
pub fn summary_text(summary: Option<String>, description: &str) -> String {
    let source = match &summary {
        Some(s) if !s.trim().is_empty() => s.as_str(),
        _ => description,
    };
    let collapsed = collapse_blanks(source.chars().filter(|&c| !is_disguising(c)));
    let mut out = String::with_capacity(collapsed.len().min(SUMMARY_MAX_CHARS * 4));
    let mut count = 0;
    let mut kept = collapsed.chars().peekable();
    while let Some(c) = kept.next() {
        if count == SUMMARY_MAX_CHARS - 1 && kept.peek().is_some() {
            out.push('…');
            break;
        }
        out.push(c);
        count += 1;
    }
    out
}

/// `text` with runs of blank lines and of spaces collapsed (see [`summary_text`]). A line break
/// is `\n`; every other white space is a space.
fn collapse_blanks(text: impl Iterator<Item = char>) -> String {
    let mut out = String::new();
    // Pending white space, written only once the next visible character comes.
    let (mut space, mut breaks) = (false, 0);
    for c in text {
        if c == '\n' {
            breaks += 1;
            space = false;
        } else if c.is_whitespace() {
            space = true;
        } else {
            if !out.is_empty() {
                match breaks {
                    0 if space => out.push(' '),
                    0 => {}
                    1 => out.push('\n'),
                    _ => out.push_str("\n\n"),
                }
            }
            (space, breaks) = (false, 0);
            out.push(c);
        }
    }
    out
}

/// A person's reason for saying no (SPEC §12), as the agent and the record get it, from the
/// card's field, `ck.cancel(id, { reason })` or a soft `decline`: one line (line breaks, tabs and
/// other control characters become spaces, runs of spaces one), the characters
/// [`summary_text`] removes removed, trimmed, and capped at [`REASON_MAX_CHARS`] characters (a
/// cut text ends with "…"). `None` when nothing is left: a blank reason is no reason.
pub fn reason_text(raw: &str) -> Option<String> {
    let mut out = String::new();
    let mut count = 0;
    let mut gap = false;
    for c in raw.chars() {
        if c.is_whitespace() || c.is_control() {
            gap = !out.is_empty();
            continue;
        }
        if is_disguising(c) {
            continue;
        }
        if gap {
            out.push(' ');
            count += 1;
            gap = false;
        }
        out.push(c);
        count += 1;
        // One past the cap is enough to know the text is cut; the rest is never read.
        if count > REASON_MAX_CHARS {
            break;
        }
    }
    if count > REASON_MAX_CHARS {
        // Back to one character short of the cap (and no space before the ellipsis).
        for _ in REASON_MAX_CHARS - 1..count {
            out.pop();
        }
        if out.ends_with(' ') {
            out.pop();
        }
        out.push('…');
    }
    (!out.is_empty()).then_some(out)
}

/// The text of the button that cancels every waiting card: `labels.cancel_all` and `total`,
/// `"Cancel all 3"`; `None` when fewer than two wait (Cancel alone does it).
pub fn cancel_all_text(label: &str, total: usize) -> Option<String> {
    (total > 1).then(|| format!("{label} {total}"))
}

/// Characters that change how the surrounding text looks without being visible themselves.
fn is_disguising(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(
            c,
            '\u{061C}'                 // Arabic letter mark
            | '\u{200B}'..='\u{200F}' // zero-width space/joiners, LRM, RLM
            | '\u{202A}'..='\u{202E}' // bidi embeddings and overrides
            | '\u{2060}'..='\u{206F}' // word joiner, bidi isolates, other invisible format chars
            | '\u{FEFF}'              // zero-width no-break space
        )
}

/// The countdown line: `"Expires in 1:59"`, `"Expires in 0:05"`, `"Expires in 1:02:03"` from an
/// hour up, `"Expired"` at or below zero (and for NaN).
///
/// Seconds round up, so the card never reads "0:00" while the proposal is still valid.
pub fn countdown_text(remaining_ms: f64) -> String {
    if remaining_ms.is_nan() || remaining_ms <= 0.0 {
        return "Expired".into();
    }
    // `as` saturates, so an infinite or huge remainder cannot overflow.
    let secs = (remaining_ms / 1000.0).ceil() as u64;
    let (hours, minutes, seconds) = (secs / 3600, secs / 60 % 60, secs % 60);
    if hours > 0 {
        format!("Expires in {hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("Expires in {minutes}:{seconds:02}")
    }
}

/// Where a `verify: "passkey"` card stands after its Confirm was clicked: the line it shows
/// under the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PasskeyStatus {
    /// The browser's passkey prompt is open.
    Waiting,
    /// The prompt was dismissed, timed out or failed.
    Failed,
    /// The authenticator did not verify the person (no PIN or biometric).
    NotVerified,
    /// A passkey signed that the app did not name for this person.
    OtherCredential,
    /// The app names no passkey for this person (any more).
    NoCredential,
}

impl PasskeyStatus {
    /// The card's line for it.
    pub fn text(self) -> &'static str {
        match self {
            PasskeyStatus::Waiting => "Waiting for your passkey…",
            PasskeyStatus::Failed => {
                "The passkey check did not finish. Confirm to try again, or Cancel."
            }
            PasskeyStatus::NotVerified => {
                "Your passkey did not verify you (no PIN or biometric). Confirm to try again, or Cancel."
            }
            PasskeyStatus::OtherCredential => {
                "That passkey cannot confirm this. Confirm to try again with another, or Cancel."
            }
            PasskeyStatus::NoCredential => {
                "No passkey is set up for you here, so this cannot be confirmed. Cancel it."
            }
        }
    }
}

/// `Some("2 of 3")` when more than one proposal waits, else `None`. `position` is 1-based.
pub fn position_text(position: usize, total: usize) -> Option<String> {
    if total <= 1 {
        return None;
    }
    Some(format!("{position} of {total}"))
}

/// Says who may confirm: `"Only admin can confirm this."`, `"Only admin or owner can confirm
/// this."`, `"Only admin, owner or editor can confirm this."`; with no roles at all,
/// `"No one can confirm this."`.
pub fn approver_notice(approvers: &[String]) -> String {
    let Some((last, rest)) = approvers.split_last() else {
        return "No one can confirm this.".into();
    };
    let mut out = String::from("Only ");
    for (i, role) in rest.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(role);
    }
    if !rest.is_empty() {
        out.push_str(" or ");
    }
    out.push_str(last);
    out.push_str(" can confirm this.");
    out
}
