//! Plain JSON data: what an agent may pass as arguments, and what the engine snapshots.
//!
//! Objects keep insertion order as a `Vec` of pairs (no duplicate keys), so a record shows the
//! arguments the way they came; equality that matters for security ([`Value::canonical_eq`])
//! ignores that order.

use core::fmt::{self, Write as _};

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::error::Error;

/// Nesting deeper than this is refused by [`Value::parse_json`] and by the engine, which keeps
/// every recursive walk over arguments (size, equality, validation) shallow.
pub const MAX_DEPTH: usize = 64;

/// The longest JSON text a finite `f64` can print as: 17 significant digits below 1e-6 but
/// above 1e-7 print in full, as in `-0.0000012345678901234567` (25 bytes).
const MAX_NUMBER_LEN: usize = 25;

/// Safe integers (|n| < 2^53) print exactly with integer arithmetic.
const SAFE_INTEGER: f64 = 9_007_199_254_740_992.0;

/// A JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A finite number (the engine never stores NaN or infinities).
    Number(f64),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, in insertion order, without duplicate keys.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The UTF-8 byte length of this value's compact JSON (as `JSON.stringify` prints it).
    ///
    /// Exact for everything except a number that is not a safe integer (a fraction, or a
    /// magnitude of 2^53 or more): it counts as 25 bytes, the longest a double prints as, so
    /// the size limit is never under-counted and float printing stays out of the wasm.
    pub fn json_len(&self) -> usize {
        match self {
            Value::Null => 4,
            Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            Value::Number(n) => number_len(*n),
            Value::String(s) => string_len(s),
            Value::Array(items) => {
                2 + items.len().saturating_sub(1) + items.iter().map(Value::json_len).sum::<usize>()
            }
            Value::Object(fields) => {
                2 + fields.len().saturating_sub(1)
                    + fields
                        .iter()
                        .map(|(k, v)| string_len(k) + 1 + v.json_len())
                        .sum::<usize>()
            }
        }
    }

    /// Appends this value's compact JSON to `out`, strings escaped and numbers printed as
    /// `JSON.stringify` does. (Printing a fraction links Rust's float formatting; the wasm hot
    /// path does not call this.)
    pub fn write_json(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) => write_number(out, *n),
            Value::String(s) => write_string(out, s),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            Value::Object(fields) => {
                out.push('{');
                for (i, (key, item)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(out, key);
                    out.push(':');
                    item.write_json(out);
                }
                out.push('}');
            }
        }
    }

    /// The compact JSON as a new string.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }

    /// Deep equality that ignores the order of object keys (`0 == -0`).
    pub fn canonical_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.canonical_eq(y))
            }
            (Value::Object(a), Value::Object(b)) => {
                if a.len() != b.len() {
                    return false;
                }
                if a.len() <= 16 {
                    // Small objects: a linear scan beats sorting.
                    return a.iter().all(|(key, x)| {
                        b.iter()
                            .find(|(k, _)| k == key)
                            .is_some_and(|(_, y)| x.canonical_eq(y))
                    });
                }
                let mut a: Vec<&(String, Value)> = a.iter().collect();
                let mut b: Vec<&(String, Value)> = b.iter().collect();
                a.sort_unstable_by(|x, y| x.0.cmp(&y.0));
                b.sort_unstable_by(|x, y| x.0.cmp(&y.0));
                a.iter()
                    .zip(&b)
                    .all(|(x, y)| x.0 == y.0 && x.1.canonical_eq(&y.1))
            }
            _ => false,
        }
    }

    /// An object's field, `None` for a missing key or a value that is not an object.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Object(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// True when nesting goes deeper than `limit` levels (a scalar is depth 0). Stops as soon
    /// as it knows, so the walk itself is never deeper than `limit`.
    pub fn deeper_than(&self, limit: usize) -> bool {
        match self {
            Value::Array(items) => limit == 0 || items.iter().any(|v| v.deeper_than(limit - 1)),
            Value::Object(fields) => {
                limit == 0 || fields.iter().any(|(_, v)| v.deeper_than(limit - 1))
            }
            _ => false,
        }
    }

    /// Parses JSON text (as `JSON.parse` would, but refusing numbers that overflow to infinity
    /// and nesting deeper than [`MAX_DEPTH`]; a repeated key keeps its last value; a lone
    /// surrogate escape becomes U+FFFD). Errors are [`Error::InvalidArgs`] naming the offset.
    pub fn parse_json(text: &str) -> Result<Value, Error> {
        let mut parser = Parser {
            bytes: text.as_bytes(),
            text,
            pos: 0,
        };
        parser.skip_ws();
        let value = parser.value(0)?;
        parser.skip_ws();
        if parser.pos != parser.bytes.len() {
            return Err(parser.fail("unexpected text after the JSON value"));
        }
        Ok(value)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Self {
        Value::String(s.into())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Self {
        Value::String(s)
    }
}

impl From<f64> for Value {
    fn from(n: f64) -> Self {
        Value::Number(n)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bool(b)
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => serializer.serialize_unit(),
            Value::Bool(b) => serializer.serialize_bool(*b),
            Value::Number(n) => {
                // Whole numbers go out as integers so JSON serializers print `1`, not `1.0`.
                if n.fract() == 0.0
                    && n.abs() < SAFE_INTEGER
                    && !(*n == 0.0 && n.is_sign_negative())
                {
                    serializer.serialize_i64(*n as i64)
                } else {
                    serializer.serialize_f64(*n)
                }
            }
            Value::String(s) => serializer.serialize_str(s),
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Value::Object(fields) => {
                let mut map = serializer.serialize_map(Some(fields.len()))?;
                for (key, item) in fields {
                    map.serialize_entry(key, item)?;
                }
                map.end()
            }
        }
    }
}

impl fmt::Display for Value {
    /// Compact JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

fn is_safe_integer(n: f64) -> bool {
    n.fract() == 0.0 && n.abs() < SAFE_INTEGER
}

fn number_len(n: f64) -> usize {
    if !n.is_finite() {
        return 4; // JSON.stringify prints `null`
    }
    if !is_safe_integer(n) {
        return MAX_NUMBER_LEN;
    }
    // -0 prints as "0".
    let mut rest = n.abs() as u64;
    let mut digits = 1;
    while rest >= 10 {
        rest /= 10;
        digits += 1;
    }
    digits + usize::from(n < 0.0)
}

/// Does `c` need an escape in JSON.stringify's output, and how long is it?
fn escaped_len(c: u8) -> usize {
    match c {
        b'"' | b'\\' | 0x08 | 0x0c | b'\n' | b'\r' | b'\t' => 2,
        0..=0x1f => 6,
        _ => 1,
    }
}

fn string_len(s: &str) -> usize {
    2 + s.bytes().map(escaped_len).sum::<usize>()
}

fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut run_start = 0;
    for (i, c) in s.bytes().enumerate() {
        if escaped_len(c) == 1 {
            continue;
        }
        out.push_str(&s[run_start..i]);
        run_start = i + 1;
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[usize::from(c >> 4)] as char);
                out.push(HEX[usize::from(c & 15)] as char);
            }
        }
    }
    out.push_str(&s[run_start..]);
    out.push('"');
}

/// Prints a number the way JavaScript's `Number.prototype.toString` does.
fn write_number(out: &mut String, n: f64) {
    if !n.is_finite() {
        out.push_str("null");
        return;
    }
    if is_safe_integer(n) {
        if n < 0.0 {
            out.push('-');
        }
        push_decimal(out, n.abs() as u64);
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits; JS only places them differently.
    let mut sci = String::with_capacity(MAX_NUMBER_LEN);
    let _ = write!(sci, "{:e}", n.abs());
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let k = digits.len() as i32;
    let point = exponent.parse::<i32>().unwrap_or(0) + 1; // JS's `n`
    if n < 0.0 {
        out.push('-');
    }
    if k <= point && point <= 21 {
        out.push_str(&digits);
        push_zeros(out, point - k);
    } else if 0 < point && point <= 21 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        push_zeros(out, -point);
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if point > 0 { '+' } else { '-' });
        let _ = write!(out, "{}", (point - 1).unsigned_abs());
    }
}

/// Decimal digits without `core::fmt` (keeps the wasm small).
pub(crate) fn push_decimal(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[i..] {
        out.push(d as char);
    }
}

fn push_zeros(out: &mut String, count: i32) {
    for _ in 0..count {
        out.push('0');
    }
}

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn fail(&self, what: &str) -> Error {
        let mut message = String::from("args: not valid JSON at byte ");
        push_decimal(&mut message, self.pos as u64);
        message.push_str(": ");
        message.push_str(what);
        Error::InvalidArgs(message)
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, literal: &str) -> bool {
        if self.bytes[self.pos..].starts_with(literal.as_bytes()) {
            self.pos += literal.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, Error> {
        match self.bytes.get(self.pos) {
            None => Err(self.fail("unexpected end")),
            Some(b'n') if self.eat("null") => Ok(Value::Null),
            Some(b't') if self.eat("true") => Ok(Value::Bool(true)),
            Some(b'f') if self.eat("false") => Ok(Value::Bool(false)),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'[') => {
                if depth >= MAX_DEPTH {
                    return Err(self.fail("nested too deeply"));
                }
                self.pos += 1;
                let mut items = Vec::new();
                self.skip_ws();
                if self.eat("]") {
                    return Ok(Value::Array(items));
                }
                loop {
                    self.skip_ws();
                    items.push(self.value(depth + 1)?);
                    self.skip_ws();
                    if self.eat("]") {
                        return Ok(Value::Array(items));
                    }
                    if !self.eat(",") {
                        return Err(self.fail("expected `,` or `]`"));
                    }
                }
            }
            Some(b'{') => {
                if depth >= MAX_DEPTH {
                    return Err(self.fail("nested too deeply"));
                }
                self.pos += 1;
                let mut fields: Vec<(String, Value)> = Vec::new();
                self.skip_ws();
                if self.eat("}") {
                    return Ok(Value::Object(fields));
                }
                loop {
                    self.skip_ws();
                    if self.bytes.get(self.pos) != Some(&b'"') {
                        return Err(self.fail("expected a string key"));
                    }
                    let key = self.string()?;
                    self.skip_ws();
                    if !self.eat(":") {
                        return Err(self.fail("expected `:`"));
                    }
                    self.skip_ws();
                    let item = self.value(depth + 1)?;
                    match fields.iter_mut().find(|(k, _)| *k == key) {
                        Some(slot) => slot.1 = item,
                        None => fields.push((key, item)),
                    }
                    self.skip_ws();
                    if self.eat("}") {
                        return Ok(Value::Object(fields));
                    }
                    if !self.eat(",") {
                        return Err(self.fail("expected `,` or `}`"));
                    }
                }
            }
            Some(_) => Err(self.fail("unexpected character")),
        }
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while let Some(b'0'..=b'9') = p.bytes.get(p.pos) {
                p.pos += 1;
            }
            p.pos - from
        };
        self.eat("-");
        let int_start = self.pos;
        let int_len = digits(self);
        if int_len == 0 || (int_len > 1 && self.bytes[int_start] == b'0') {
            return Err(self.fail("malformed number"));
        }
        if self.eat(".") && digits(self) == 0 {
            return Err(self.fail("malformed number"));
        }
        if matches!(self.bytes.get(self.pos), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(self.fail("malformed number"));
            }
        }
        match self.text[start..self.pos].parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(Value::Number(n)),
            _ => Err(self.fail("number out of range")),
        }
    }

    fn hex4(&mut self) -> Result<u32, Error> {
        let Some(hex) = self.text.get(self.pos..self.pos + 4) else {
            return Err(self.fail("bad \\u escape"));
        };
        let code = u32::from_str_radix(hex, 16).map_err(|_| self.fail("bad \\u escape"))?;
        self.pos += 4;
        Ok(code)
    }

    fn string(&mut self) -> Result<String, Error> {
        self.pos += 1; // the opening quote
        let mut out = String::new();
        loop {
            let run_start = self.pos;
            while let Some(&c) = self.bytes.get(self.pos) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.text[run_start..self.pos]);
            match self.bytes.get(self.pos) {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(&escape) = self.bytes.get(self.pos) else {
                        return Err(self.fail("unterminated string"));
                    };
                    self.pos += 1;
                    match escape {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let mut code = self.hex4()?;
                            if (0xd800..0xdc00).contains(&code)
                                && self.bytes[self.pos..].starts_with(b"\\u")
                            {
                                let mark = self.pos;
                                self.pos += 2;
                                let low = self.hex4()?;
                                if (0xdc00..0xe000).contains(&low) {
                                    code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
                                } else {
                                    self.pos = mark;
                                }
                            }
                            out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                        }
                        _ => return Err(self.fail("bad escape")),
                    }
                }
                Some(_) => return Err(self.fail("control character in string")),
                None => return Err(self.fail("unterminated string")),
            }
        }
    }
}
