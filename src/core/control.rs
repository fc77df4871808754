//! Control levels and how an action's effective level is resolved (SPEC §1).

/// How firmly a call is gated before it fires. Ordered by strictness, so the stricter of two
/// levels is their `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Control {
    /// Fires at once.
    Open,
    /// The first call answers `needs_confirmation` with a single-use token.
    Soft,
    /// Only a trusted click on the SDK's card fires it.
    Hard,
}

impl Control {
    /// Every level, in the order of their numbers (codes.js `CONTROLS`).
    pub const ALL: [Control; 3] = [Control::Open, Control::Soft, Control::Hard];

    /// `"open"`, `"soft"` or `"hard"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Control::Open => "open",
            Control::Soft => "soft",
            Control::Hard => "hard",
        }
    }

    /// The level named exactly `"open"`, `"soft"` or `"hard"`; anything else is `None`.
    pub fn parse(s: &str) -> Option<Control> {
        match s {
            "open" => Some(Control::Open),
            "soft" => Some(Control::Soft),
            "hard" => Some(Control::Hard),
            _ => None,
        }
    }
}

/// Why an action has its level; carried on every record as `controlSource`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ControlSource {
    /// The action declared `control`.
    Declared,
    /// The instance's `defaultControl`.
    Default,
    /// The name reads destructive, so the level was raised to at least `soft`.
    DestructiveName,
}

impl ControlSource {
    /// Every source, in the order of their numbers (codes.js `CONTROL_SOURCES`).
    pub const ALL: [ControlSource; 3] = [
        ControlSource::Declared,
        ControlSource::Default,
        ControlSource::DestructiveName,
    ];

    /// `"declared"`, `"default"` or `"destructive_name"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ControlSource::Declared => "declared",
            ControlSource::Default => "default",
            ControlSource::DestructiveName => "destructive_name",
        }
    }
}

/// Words that make a name read destructive (SPEC §1).
const DESTRUCTIVE_WORDS: [&str; 18] = [
    "delete",
    "remove",
    "purge",
    "destroy",
    "drop",
    "erase",
    "wipe",
    "truncate",
    "revoke",
    "reset",
    "clear",
    "terminate",
    "kill",
    "unlink",
    "uninstall",
    "overwrite",
    "discard",
    "cancel",
];

/// Does any word of `name` name a destructive verb?
///
/// Words are split on camelCase (`deleteProject` → delete, project), acronym ends
/// (`HTMLDropZone` → html, drop, zone), digits and every other non-letter (`_`, `-`, `.`),
/// then compared without case. `"deleted"` or `"undelete"` are single words and do not match.
pub fn reads_destructive(name: &str) -> bool {
    let bytes = name.as_bytes();
    let mut start = 0;
    while start < bytes.len() {
        if !bytes[start].is_ascii_alphabetic() {
            start += 1;
            continue;
        }
        let mut end = start + 1;
        while end < bytes.len() && !is_word_break(bytes, end) {
            end += 1;
        }
        let word = &bytes[start..end];
        if DESTRUCTIVE_WORDS
            .iter()
            .any(|w| w.as_bytes().eq_ignore_ascii_case(word))
        {
            return true;
        }
        start = end;
    }
    false
}

/// Does a new word start at `i` (given that `i - 1` is a letter of the current word)?
fn is_word_break(bytes: &[u8], i: usize) -> bool {
    let (prev, cur) = (bytes[i - 1], bytes[i]);
    if !cur.is_ascii_alphabetic() {
        return true;
    }
    if prev.is_ascii_lowercase() && cur.is_ascii_uppercase() {
        return true; // deleteProject
    }
    // The last capital of an acronym starts the next word: HTMLDrop → HTML, Drop.
    prev.is_ascii_uppercase()
        && cur.is_ascii_uppercase()
        && bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase)
}

/// The effective level of an action and why (SPEC §1): a declared level always wins; else a
/// destructive-reading name gets the stricter of `soft` and `default`; else `default`.
pub fn resolve_control(
    declared: Option<Control>,
    name: &str,
    default: Control,
) -> (Control, ControlSource) {
    match declared {
        Some(control) => (control, ControlSource::Declared),
        None if reads_destructive(name) => {
            (Control::Soft.max(default), ControlSource::DestructiveName)
        }
        None => (default, ControlSource::Default),
    }
}
