//! Crossing the boundary: JavaScript values to [`Value`] and back, without serde on the hot path.
//!
//! Reading is one JS pass (`CkArgs` in [`js`](super::js)): it walks the value with `typeof`
//! checks, refusing anything that is not plain JSON data (functions, symbols, `BigInt`, class
//! instances, non-finite numbers, undefined array items, cycles and nesting deeper than
//! [`MAX_DEPTH`]) with a message that names the path, and stops early once the JSON would
//! exceed the size limit, so a hostile million-key object costs no more than the limit allows.
//! A Proxy whose trap throws, or a throwing getter, is refused the same way (every read is in
//! a `try`: an exception crossing into the wasm would make `invoke` throw and skip its
//! cleanup); an undefined property is skipped, as `JSON.stringify` skips it. For `invoke` the
//! same pass also builds the deeply frozen copy that `run` and the record receive, with each
//! lone surrogate as U+FFFD, as the [`Value`] has it. Two keys of one object that read the same
//! once their lone surrogates are U+FFFD are refused: the schema would check one and `run`
//! would see the other. Walking it from Rust instead cost two or three crossings
//! per value (kind, key, `Reflect.get`, a string decode) and as many again to build the copy.
//!
//! The size is counted as the walk goes, in UTF-8 bytes: 4 or 5 for a literal; a number's
//! digits (25, the most any double prints as, for a fraction or a magnitude of 10^15 or more);
//! a string's bytes + 2 (escapes are not counted: the engine measures the exact JSON again);
//! 2 + a comma per item for an array, counted from its `length` before any item is read (so a
//! Proxy claiming 2^32 − 1 items stops at once); 2 for an object and the key's bytes + 4 per
//! property. The copy's properties are plain own data properties: a key the new object would
//! inherit (`__proto__`, `constructor`…) is defined, not assigned, so no prototype setter runs.
//!
//! The pass hands Rust a *tape*, one string that [`Tape`] decodes (the text reaches Rust as
//! UTF-8, lone surrogates as U+FFFD, which the lengths below count):
//!
//! - `n`, `t`, `f`: null, true, false;
//! - `i` decimal `;`: a safe integer (never -0); `d` 16 hex digits: any other number's bits;
//! - `s` *len* `:` *text*: a string of *len* UTF-8 bytes;
//! - `[` *n* `:` values `]`; `{` *n* `:` (*len* `:` *key* value)… `}`, where *n* is the
//!   array's length or the object's number of keys (an undefined property is left out);
//! - instead of a value, at the top: `#` *size* `;` (over the budget after *size* bytes) or
//!   `!` *why* *path* (not JSON data: *why* is a digit or `a`, see [`not_json_reason`]).
//!
//! A call's tape ([`read_call`]) starts with its fields, each `s` *len* `:` *text* (a string),
//! `u` (undefined or null) or `x` (anything else): `name`; `callId`, followed by *len* `:` a
//! fresh id when it is not a string; `confirmToken`. Then `1` or `0` for `decline`, then the
//! args as above, or `u` when they are undefined.
//!
//! A provider tool call's tape ([`read_tool_call`], `ckReadToolCall`) starts with the shape's
//! digit, then its id and name as fields, then its arguments: a value (always an object), `#`
//! or `!` as above, or `?` and the whole message of any other `invalid_args`. The rules it
//! follows: `type`, `id`, `call_id`, `name`, `tool_use_id`, `arguments`, `input`, then
//! `function`'s `name` and `arguments` are each read once, in that order; a string longer than
//! 4 × `max` + 4096 UTF-16 units is refused by its length, uncopied; `arguments` and `input`
//! that are not strings are read as args (with `max` as the budget) whether or not the shape
//! uses them, and the first refusal of any field stands. Arguments given as JSON text are read
//! with lone surrogates as U+FFFD, then `JSON.parse`d and read as args; text that Rust's
//! `str::trim` would leave empty, `null` or none at all are no arguments (`{}`).
//!
//! Writing builds fresh, frozen JS objects; keys like `__proto__` become own data properties.

use std::cell::RefCell;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

use super::js;
use crate::core::error::Error;
use crate::core::value::Value;

/// Reads a JS value as plain JSON data. `budget` is the largest JSON size (in UTF-8 bytes)
/// that is acceptable; going past it is `args_too_large` even before the walk ends.
pub fn read_value(value: &JsValue, budget: usize) -> Result<Value, Error> {
    let tape = js::read_value_tape(value, budget as f64);
    Tape::new(&tape).args(budget)
}

/// One field of an `invoke` call as JS had it.
pub enum Field {
    /// A string (lone surrogates as U+FFFD).
    Text(String),
    /// `undefined` (or missing) or `null`.
    Absent,
    /// Anything else.
    Other,
}

/// An `invoke` call, read in one crossing by [`read_call`].
pub struct CallFields {
    /// `name`.
    pub name: Field,
    /// `args`: `None` when undefined; else the value and its frozen JS copy, or why it is not
    /// plain JSON data within the budget.
    pub args: Option<Result<(Value, JsValue), Error>>,
    /// `callId`.
    pub call_id: Field,
    /// A fresh id in the engine's format (`ck_` + 32 hex digits of `crypto.getRandomValues`),
    /// made in JS when `callId` is not a string, for the caller to use if it is absent.
    pub fresh_id: Option<String>,
    /// `confirmToken`.
    pub confirm_token: Field,
    /// `decline`, truthy.
    pub decline: bool,
}

/// Reads an `invoke` call object (see [`CallFields`]); `budget` as in [`read_value`]. Every
/// property is read once, in the order `name`, `args`, `callId`, `confirmToken`, `decline`;
/// a getter that throws reads as `undefined`.
pub fn read_call(call: &JsValue, budget: usize) -> CallFields {
    let text = js::read_call_tape(call, budget as f64);
    let mut tape = Tape::new(&text);
    let name = tape.field();
    let call_id = tape.field();
    let fresh_id = match call_id {
        Field::Text(_) => None,
        _ => tape.text(),
    };
    let confirm_token = tape.field();
    let decline = tape.byte() == Some(b'1');
    let args = if tape.rest() == "u" {
        None
    } else {
        Some(tape.args(budget).map(|value| (value, js::take_copy())))
    };
    CallFields {
        name,
        args,
        call_id,
        fresh_id,
        confirm_token,
        decline,
    }
}

/// A provider tool call, read in one crossing by [`read_tool_call`].
pub struct ToolCallFields {
    /// The shape it came in, and its answer goes out in (for an unrecognised call, the
    /// closest): 0 OpenAI Chat, 1 OpenAI Responses, 2 Anthropic, as [`js::answer`] takes.
    pub kind: u8,
    /// The provider's call id, when a string; it becomes the `callId`.
    pub id: Option<String>,
    /// The tool (action) name; empty when it is not a string.
    pub name: String,
    /// The arguments as a JSON object, or why the call is refused.
    pub args: Result<Value, Error>,
}

/// Reads a provider tool call (`ckReadToolCall`, tape format in the module docs); `max` is
/// `maxArgsBytes`.
pub fn read_tool_call(call: &JsValue, max: usize) -> ToolCallFields {
    let text = js::read_tool_call_tape(call, max as f64);
    let mut tape = Tape::new(&text);
    let kind = tape.byte().unwrap_or_default().wrapping_sub(b'0');
    let mut text_field = || match tape.field() {
        Field::Text(text) => Some(text),
        _ => None,
    };
    let id = text_field();
    let name = text_field().unwrap_or_default();
    let args = match tape.rest().strip_prefix('?') {
        Some(message) => Err(Error::InvalidArgs(message.into())),
        None => tape.args(max),
    };
    ToolCallFields {
        kind,
        id,
        name,
        args,
    }
}

/// The JS string of the `callId` the last [`read_call`] read: the one given, or the fresh one.
pub fn call_id_js() -> JsValue {
    js::take_id()
}

/// What the `!` *why* digit of a tape means.
fn not_json_reason(why: u8) -> &'static str {
    match why {
        b'0' => "is nested too deeply (or is cyclic)",
        b'1' => "is not a finite number",
        b'2' => "is undefined",
        b'3' => "is a function",
        b'4' => "is a symbol",
        b'5' => "is a BigInt",
        b'6' => "is not a plain object",
        b'7' => "cannot be read",
        b'8' => "has an unreadable length",
        b'a' => {
            "is a key that another key of the object also reads as (lone surrogates read as U+FFFD)"
        }
        _ => "has a throwing getter",
    }
}

/// A reader of the tape the JS pass makes (the format is in the module docs). A tape that does
/// not decode (it never happens: both ends are ours) reads as unreadable args, not a panic.
struct Tape<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Tape<'a> {
    fn new(text: &'a str) -> Self {
        Tape { text, at: 0 }
    }

    fn byte(&mut self) -> Option<u8> {
        let b = *self.text.as_bytes().get(self.at)?;
        self.at += 1;
        Some(b)
    }

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
        let len = usize::try_from(self.number(b':')?).ok()?;
        let end = self.at.checked_add(len)?;
        let text = self.text.get(self.at..end)?;
        self.at = end;
        Some(text.to_owned())
    }

    /// The item count that opens an array or object: its length, or its number of keys (some
    /// may be left out). The engine remembers a thousand calls' args, so their vectors are
    /// made to size rather than grown.
    fn capacity(&mut self) -> Option<usize> {
        Some(usize::try_from(self.number(b':')?).ok()?.min(1024))
    }

    fn field(&mut self) -> Field {
        match self.byte() {
            Some(b's') => self.text().map_or(Field::Other, Field::Text),
            Some(b'u') => Field::Absent,
            _ => Field::Other,
        }
    }

    /// The rest of the tape: a value, or why there is none.
    fn args(&mut self, budget: usize) -> Result<Value, Error> {
        match self.text.as_bytes().get(self.at) {
            Some(b'#') => {
                self.at += 1;
                let size = self.number(b';').unwrap_or(u64::MAX);
                Err(Error::ArgsTooLarge {
                    size: usize::try_from(size).unwrap_or(usize::MAX),
                    max: budget,
                })
            }
            Some(b'!') => {
                self.at += 1;
                let why = self.byte().unwrap_or_default();
                Err(not_json(self.rest(), not_json_reason(why)))
            }
            _ => match self.value() {
                Some(value) if self.at == self.text.len() => Ok(value),
                _ => Err(not_json("args", not_json_reason(b'7'))),
            },
        }
    }

    fn value(&mut self) -> Option<Value> {
        Some(match self.byte()? {
            b'n' => Value::Null,
            b't' => Value::Bool(true),
            b'f' => Value::Bool(false),
            b'i' => {
                let negative = self.text.as_bytes().get(self.at) == Some(&b'-');
                self.at += usize::from(negative);
                let n = self.number(b';')? as f64;
                Value::Number(if negative { -n } else { n })
            }
            b'd' => {
                let mut bits = 0u64;
                for _ in 0..16 {
                    bits = bits << 4 | u64::from(char::from(self.byte()?).to_digit(16)?);
                }
                Value::Number(f64::from_bits(bits))
            }
            b's' => Value::String(self.text()?),
            b'[' => {
                let mut items = Vec::with_capacity(self.capacity()?);
                while self.text.as_bytes().get(self.at) != Some(&b']') {
                    items.push(self.value()?);
                }
                self.at += 1;
                Value::Array(items)
            }
            b'{' => {
                let mut fields = Vec::with_capacity(self.capacity()?);
                while self.text.as_bytes().get(self.at) != Some(&b'}') {
                    let key = self.text()?;
                    fields.push((key, self.value()?));
                }
                self.at += 1;
                Value::Object(fields)
            }
            _ => return None,
        })
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

/// Builds a fresh, deeply frozen JS value from `value`.
pub fn write_frozen(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(b) => JsValue::from_bool(*b),
        Value::Number(n) => JsValue::from_f64(*n),
        Value::String(s) => JsValue::from_str(s),
        Value::Array(items) => {
            let array = Array::new_with_length(items.len() as u32);
            for (i, item) in items.iter().enumerate() {
                array.set(i as u32, write_frozen(item));
            }
            Object::freeze(&array).into()
        }
        Value::Object(fields) => {
            let object = Object::new();
            for (key, item) in fields {
                set_own(&object, key, &write_frozen(item));
            }
            Object::freeze(&object).into()
        }
    }
}

/// Sets an own, enumerable data property, even for `__proto__` (where plain assignment would
/// change the prototype instead).
pub fn set_own(object: &Object, key: &str, value: &JsValue) {
    if key == "__proto__" {
        let descriptor = Object::new();
        let _ = Reflect::set(&descriptor, &"value".into(), value);
        let _ = Reflect::set(&descriptor, &"enumerable".into(), &JsValue::TRUE);
        let _ = Reflect::set(&descriptor, &"writable".into(), &JsValue::TRUE);
        let _ = Reflect::set(&descriptor, &"configurable".into(), &JsValue::TRUE);
        let _ = Reflect::define_property(object, &key.into(), &descriptor);
    } else if key.len() <= 32 {
        // Argument keys recur from call to call: decode each once.
        reflect_set(object, &name(key), value);
    } else {
        reflect_set(object, &JsValue::from_str(key), value);
    }
}

/// How many recurring strings [`name`] keeps.
const NAME_SLOTS: usize = 64;

/// How many call ids [`seed_call_id`] keeps.
const ID_SLOTS: usize = 4;

thread_local! {
    static KEYS: RefCell<Vec<(usize, JsValue)>> = const { RefCell::new(Vec::new()) };
    static NAMES: RefCell<Vec<(String, JsValue)>> = const { RefCell::new(Vec::new()) };
    static IDS: RefCell<Vec<(String, JsValue)>> = const { RefCell::new(Vec::new()) };
}

/// The JS string for a fixed name, made once. Building every record, outcome and `ctx` key
/// from UTF-8 on each call (a `TextDecoder` round trip per key) was most of an `invoke`'s cost.
pub fn key(name: &'static str) -> JsValue {
    KEYS.with(|keys| {
        let mut keys = keys.borrow_mut();
        let at = name.as_ptr() as usize;
        if let Some((_, js)) = keys.iter().find(|(p, _)| *p == at) {
            return js.clone();
        }
        let js = JsValue::from_str(name);
        keys.push((at, js.clone()));
        js
    })
}

/// The JS string for a name that recurs at run time (action names, the session id, argument
/// keys, a call's id, which its `ctx`, record and outcome all carry): each is decoded from wasm
/// memory once rather than per object. The ids of the calls just read come first (see
/// [`seed_call_id`]); the rest is a small least-recently-used cache by content.
pub fn name(text: &str) -> JsValue {
    let id = IDS.with(|ids| {
        let ids = ids.borrow();
        ids.iter()
            .rev()
            .find(|(s, _)| s == text)
            .map(|(_, js)| js.clone())
    });
    if let Some(js) = id {
        return js;
    }
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        // Most recently used last, and searched first: a hot action's name and the session id
        // stay near the end while the one-off strings pass through.
        if let Some(at) = names.iter().rposition(|(s, _)| s == text) {
            let js = names[at].1.clone();
            if at + 1 < names.len() {
                let hit = names.remove(at);
                names.push(hit);
            }
            return js;
        }
        let js = JsValue::from_str(text);
        if names.len() == NAME_SLOTS {
            names.remove(0);
        }
        names.push((text.to_owned(), js.clone()));
        js
    })
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `Reflect.set` without the exception trampoline: only ever used on the SDK's own fresh,
    /// plain objects, where it cannot throw.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn reflect_set(target: &Object, key: &JsValue, value: &JsValue) -> bool;
}

/// Keeps a call id that came from JS with its own JS value, so giving it back (in the call's
/// `ctx`, outcome and record) costs no decode. Apart from the name cache: each call brings a
/// new id, which would push the recurring names out of it and lengthen every search.
pub fn seed_call_id(text: &str, js: &JsValue) {
    IDS.with(|ids| {
        let mut ids = ids.borrow_mut();
        if ids.len() == ID_SLOTS {
            ids.remove(0);
        }
        ids.push((text.to_owned(), js.clone()));
    })
}

/// Sets `key` on one of the SDK's own objects (whose keys are fixed names).
pub fn set(object: &Object, key_name: &'static str, value: impl Into<JsValue>) {
    reflect_set(object, &key(key_name), &value.into());
}

/// Reads `key` from a JS object, `undefined` when it is absent or the read throws.
pub fn get(object: &JsValue, key_name: &'static str) -> JsValue {
    Reflect::get(object, &key(key_name)).unwrap_or(JsValue::UNDEFINED)
}
