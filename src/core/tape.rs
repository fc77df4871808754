//! Decoding the tape: what the JavaScript reader hands Rust, one string per call.
//!
//! The reader (`src/js/read.js`, for `invoke` calls, their args and provider tool calls) walks an
//! agent's value once, in JavaScript, and writes what it found here; walking it from Rust
//! instead costs two or three boundary crossings per value. What the reader accepts and refuses
//! is documented (and tested) where it is enforced, in those files; this module only decodes.
//! Its tags are named once here and once in `src/js/codes.js`, and `tests/boundary_codes.rs`
//! holds the two to each other.
//!
//! # The format
//!
//! Text reaches Rust as UTF-8, with each lone surrogate as U+FFFD; the lengths below count
//! those UTF-8 bytes.
//!
//! A value:
//! - `n`, `t`, `f`: null, true, false;
//! - `i` decimal `;`: a safe integer (never -0); `d` 16 hex digits: any other number's bits;
//! - `s` *len* `:` *text*: a string of *len* bytes;
//! - `[` *n* `:` values `]`; `{` *n* `:` (*len* `:` *key* value)… `}`, where *n* is the
//!   array's length or the object's number of keys (an undefined property is left out, so an
//!   object may hold fewer);
//! - instead of a value, at the top: `#` *size* `;` (over the budget after *size* bytes) or
//!   `!` *why* *path* (not JSON data: *why* is one of the `WHY_*` codes, *path* names the value,
//!   as in `args.items[2]`).
//!
//! An `invoke` call ([`decode_call`]) starts with three fields, `name`, `callId` and
//! `confirmToken`, each `s` *len* `:` *text* (a string), `u` (undefined or null) or `x`
//! (anything else); then `1` or `0` for `decline`; then the field `reason`; then the args as a
//! value, or `u` when they are undefined.
//!
//! A provider tool call ([`decode_tool_call`]) starts with its [`Shape`]'s digit, then its id
//! and name as fields, then its arguments: a value (always an object), `#` or `!` as above, or
//! `?` and the whole message of any other `invalid_args`.
//!
//! A tape that does not decode never comes from the reader; it reads as unreadable args, never
//! a panic.

use super::error::Error;
use super::value::{Value, MAX_DEPTH};

/// `null`.
pub const TAG_NULL: u8 = b'n';
/// `true`.
pub const TAG_TRUE: u8 = b't';
/// `false`.
pub const TAG_FALSE: u8 = b'f';
/// A safe integer in decimal, then [`TAG_NUMBER_END`].
pub const TAG_INT: u8 = b'i';
/// Any other number: the 16 hex digits of its bits.
pub const TAG_DOUBLE: u8 = b'd';
/// A string (or a call's field that is one): its length, [`TAG_LENGTH_END`], its text.
pub const TAG_STRING: u8 = b's';
/// An array: its length, [`TAG_LENGTH_END`], its items, [`TAG_ARRAY_END`].
pub const TAG_ARRAY: u8 = b'[';
/// Ends an array.
pub const TAG_ARRAY_END: u8 = b']';
/// An object: its number of keys, [`TAG_LENGTH_END`], keys and values, [`TAG_OBJECT_END`].
pub const TAG_OBJECT: u8 = b'{';
/// Ends an object.
pub const TAG_OBJECT_END: u8 = b'}';
/// Ends a length or a count.
pub const TAG_LENGTH_END: u8 = b':';
/// Ends an integer or a size.
pub const TAG_NUMBER_END: u8 = b';';
/// Instead of a value: over the budget after the size that follows.
pub const TAG_TOO_LARGE: u8 = b'#';
/// Instead of a value: not JSON data; a `WHY_*` code and the path follow.
pub const TAG_NOT_JSON: u8 = b'!';
/// Instead of a tool call's arguments: the whole `invalid_args` message follows.
pub const TAG_REFUSED: u8 = b'?';
/// A call's field that is `undefined` or `null`; also: an `invoke` call without `args`.
pub const TAG_ABSENT: u8 = b'u';
/// A call's field that is neither a string nor absent, or an `invoke` call's string field longer
/// than [`MAX_FIELD_BYTES`].
pub const TAG_OTHER: u8 = b'x';
/// The longest `name`, `callId` or `confirmToken` of an `invoke` call that the reader copies, in
/// UTF-8 bytes: nothing longer is valid (a name has at most 64 bytes, a `callId` at most 256, a
/// token far fewer), and the bound keeps an agent's megabyte string out of wasm memory.
pub const MAX_FIELD_BYTES: usize = 256;
/// `decline` is truthy.
pub const TAG_DECLINE: u8 = b'1';
/// `decline` is falsy.
pub const TAG_NO_DECLINE: u8 = b'0';

/// Nested deeper than [`MAX_DEPTH`], which a cycle always is.
pub const WHY_TOO_DEEP: u8 = b'0';
/// NaN or an infinity.
pub const WHY_NOT_FINITE: u8 = b'1';
/// `undefined` where a value must be (an array item, the args themselves).
pub const WHY_UNDEFINED: u8 = b'2';
/// A function.
pub const WHY_FUNCTION: u8 = b'3';
/// A symbol.
pub const WHY_SYMBOL: u8 = b'4';
/// A `BigInt`.
pub const WHY_BIGINT: u8 = b'5';
/// An object that is not plain (a class instance, a `Date`, a `Map`…).
pub const WHY_NOT_PLAIN: u8 = b'6';
/// An object whose kind or keys cannot be read (a Proxy whose trap throws).
pub const WHY_UNREADABLE: u8 = b'7';
/// An array whose `length` is not an array length.
pub const WHY_BAD_LENGTH: u8 = b'8';
/// A property whose read threw.
pub const WHY_GETTER_THREW: u8 = b'9';
/// A key that another key of its object reads as, once lone surrogates are U+FFFD.
pub const WHY_DUPLICATE_KEY: u8 = b'a';

/// The provider shape of a tool call, which its answer goes back in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Shape {
    /// OpenAI Chat Completions: `{id, type: "function", function: {name, arguments}}`.
    OpenAiChat = 0,
    /// OpenAI Responses: `{type: "function_call", call_id, name, arguments}`.
    OpenAiResponses = 1,
    /// Anthropic Messages: `{type: "tool_use", id, name, input}`.
    Anthropic = 2,
    /// MCP `tools/call` params: `{name, arguments}`, with no id of its own.
    Mcp = 3,
    /// The Vercel AI SDK: `{toolCallId, toolName, input}`.
    AiSdk = 4,
    /// AG-UI: OpenAI Chat's shape, read as AG-UI's because the app said so; answered with a
    /// `tool` message.
    AgUi = 5,
}

/// One field of a call as JavaScript had it.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    /// A string (lone surrogates as U+FFFD).
    Text(String),
    /// `undefined` (or missing) or `null`.
    Absent,
    /// Anything else.
    Other,
}

/// An `invoke` call's tape, decoded.
#[derive(Debug, PartialEq)]
pub struct Call {
    /// `name`.
    pub name: Field,
    /// `callId`.
    pub call_id: Field,
    /// `confirmToken`.
    pub confirm_token: Field,
    /// `decline`, truthy.
    pub decline: bool,
    /// `reason` (the reader keeps at most its first 1,000 UTF-16 code units).
    pub reason: Field,
    /// `args`: `None` when undefined; else the value, or why it is not plain JSON data within
    /// the budget.
    pub args: Option<Result<Value, Error>>,
}

/// A provider tool call's tape, decoded.
#[derive(Debug, PartialEq)]
pub struct ToolCall {
    /// The shape it came in (for a call of no known shape, the closest).
    pub kind: Shape,
    /// The provider's call id, when a string.
    pub id: Option<String>,
    /// The tool (action) name; empty when it is not a string.
    pub name: String,
    /// The arguments as a JSON object, or why the call is refused.
    pub args: Result<Value, Error>,
}

/// Decodes a value's tape; `budget` is the size limit the reader was given (for the message of
/// [`Error::ArgsTooLarge`]).
pub fn decode_value(tape: &str, budget: usize) -> Result<Value, Error> {
    Tape::new(tape).args(budget)
}

/// Decodes an `invoke` call's tape; `budget` as in [`decode_value`].
pub fn decode_call(tape: &str, budget: usize) -> Call {
    let mut tape = Tape::new(tape);
    let name = tape.field();
    let call_id = tape.field();
    let confirm_token = tape.field();
    let decline = tape.byte() == Some(TAG_DECLINE);
    let reason = tape.field();
    let args = if tape.rest().as_bytes() == [TAG_ABSENT] {
        None
    } else {
        Some(tape.args(budget))
    };
    Call {
        name,
        call_id,
        confirm_token,
        decline,
        reason,
        args,
    }
}

/// Decodes a provider tool call's tape; `max` is the budget its arguments were read with.
pub fn decode_tool_call(tape: &str, max: usize) -> ToolCall {
    let mut tape = Tape::new(tape);
    let kind = match tape.byte().map(|b| b.wrapping_sub(b'0')) {
        Some(k) if k == Shape::OpenAiResponses as u8 => Shape::OpenAiResponses,
        Some(k) if k == Shape::Anthropic as u8 => Shape::Anthropic,
        Some(k) if k == Shape::Mcp as u8 => Shape::Mcp,
        Some(k) if k == Shape::AiSdk as u8 => Shape::AiSdk,
        Some(k) if k == Shape::AgUi as u8 => Shape::AgUi,
        _ => Shape::OpenAiChat,
    };
    let mut text_field = || match tape.field() {
        Field::Text(text) => Some(text),
        _ => None,
    };
    let id = text_field();
    let name = text_field().unwrap_or_default();
    let args = match tape.rest().strip_prefix(char::from(TAG_REFUSED)) {
        Some(message) => Err(Error::InvalidArgs(message.into())),
        None => tape.args(max),
    };
    ToolCall {
        kind,
        id,
        name,
        args,
    }
}

/// What a `WHY_*` code says of the value at the path.
fn not_json_reason(why: u8) -> &'static str {
    match why {
        WHY_TOO_DEEP => "is nested too deeply (or is cyclic)",
        WHY_NOT_FINITE => "is not a finite number",
        WHY_UNDEFINED => "is undefined",
        WHY_FUNCTION => "is a function",
        WHY_SYMBOL => "is a symbol",
        WHY_BIGINT => "is a BigInt",
        WHY_NOT_PLAIN => "is not a plain object",
        WHY_UNREADABLE => "cannot be read",
        WHY_BAD_LENGTH => "has an unreadable length",
        WHY_DUPLICATE_KEY => {
            "is a key that another key of the object also reads as (lone surrogates read as U+FFFD)"
        }
        _ => "has a throwing getter",
    }
}

fn not_json(path: &str, what: &str) -> Error {
    let mut message = String::with_capacity(path.len() + what.len() + 24);
    message.push_str(path);
    message.push_str(": ");
    message.push_str(what);
    message.push_str(", not JSON data");
    Error::InvalidArgs(message)
}

struct Tape<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Tape<'a> {
    fn new(text: &'a str) -> Self {
        Tape { text, at: 0 }
    }

    // `peek`, `byte` and `rest` run for every byte of a tape's structure, on every `invoke`.
    // The release build (`opt-level = "z"`) leaves them as calls otherwise, which costs an open
    // invoke about 1% of its time.
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    #[inline(always)]
    fn byte(&mut self) -> Option<u8> {
        let b = self.peek()?;
        self.at += 1;
        Some(b)
    }

    #[inline(always)]
    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    /// Decimal digits up to `end`, which is consumed.
    fn number(&mut self, end: u8) -> Option<u64> {
        let mut n: u64 = 0;
        loop {
            match self.byte()? {
                b if b == end => return Some(n),
                // The bound keeps `n * 10 + 9` in range without 128-bit overflow checks.
                b @ b'0'..=b'9' if n < 1 << 59 => n = n * 10 + u64::from(b - b'0'),
                _ => return None,
            }
        }
    }

    /// *len* `:` *text*.
    fn text(&mut self) -> Option<String> {
        let len = usize::try_from(self.number(TAG_LENGTH_END)?).ok()?;
        let end = self.at.checked_add(len)?;
        let text = self.text.get(self.at..end)?;
        self.at = end;
        Some(text.to_owned())
    }

    /// The item count that opens an array or object: its length, or its number of keys (some
    /// may be left out). The engine remembers a thousand calls' args, so their vectors are
    /// made to size rather than grown; the cap keeps a bad count from reserving much.
    fn capacity(&mut self) -> Option<usize> {
        Some(
            usize::try_from(self.number(TAG_LENGTH_END)?)
                .ok()?
                .min(1024),
        )
    }

    fn field(&mut self) -> Field {
        match self.byte() {
            Some(TAG_STRING) => self.text().map_or(Field::Other, Field::Text),
            Some(TAG_ABSENT) => Field::Absent,
            _ => Field::Other,
        }
    }

    /// The rest of the tape: a value, or why there is none.
    fn args(&mut self, budget: usize) -> Result<Value, Error> {
        match self.peek() {
            Some(TAG_TOO_LARGE) => {
                self.at += 1;
                let size = self.number(TAG_NUMBER_END).unwrap_or(u64::MAX);
                Err(Error::ArgsTooLarge {
                    size: usize::try_from(size).unwrap_or(usize::MAX),
                    max: budget,
                })
            }
            Some(TAG_NOT_JSON) => {
                self.at += 1;
                let why = self.byte().unwrap_or_default();
                Err(not_json(self.rest(), not_json_reason(why)))
            }
            _ => match self.value(0) {
                Some(value) if self.at == self.text.len() => Ok(value),
                _ => Err(not_json("args", not_json_reason(WHY_UNREADABLE))),
            },
        }
    }

    /// A value `depth` containers down. The reader refuses values past [`MAX_DEPTH`], so a
    /// deeper tape is not the reader's, and the bound keeps this recursion shallow.
    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        Some(match self.byte()? {
            TAG_NULL => Value::Null,
            TAG_TRUE => Value::Bool(true),
            TAG_FALSE => Value::Bool(false),
            TAG_INT => {
                let negative = self.peek() == Some(b'-');
                self.at += usize::from(negative);
                let n = self.number(TAG_NUMBER_END)? as f64;
                Value::Number(if negative { -n } else { n })
            }
            TAG_DOUBLE => {
                let mut bits = 0u64;
                for _ in 0..16 {
                    bits = bits << 4 | u64::from(char::from(self.byte()?).to_digit(16)?);
                }
                let n = f64::from_bits(bits);
                // A `Value` never holds NaN or an infinity.
                if !n.is_finite() {
                    return None;
                }
                Value::Number(n)
            }
            TAG_STRING => Value::String(self.text()?),
            TAG_ARRAY => {
                let mut items = Vec::with_capacity(self.capacity()?);
                while self.peek() != Some(TAG_ARRAY_END) {
                    items.push(self.value(depth + 1)?);
                }
                self.at += 1;
                Value::Array(items)
            }
            TAG_OBJECT => {
                let mut fields = Vec::with_capacity(self.capacity()?);
                while self.peek() != Some(TAG_OBJECT_END) {
                    let key = self.text()?;
                    fields.push((key, self.value(depth + 1)?));
                }
                self.at += 1;
                Value::Object(fields)
            }
            _ => return None,
        })
    }
}
