//! Plain JSON data: what an agent may pass as arguments, and what the engine snapshots.
//!
//! Objects keep insertion order as a `Vec` of pairs (no duplicate keys), so a record shows the
//! arguments the way they came; equality that matters for security ([`Value::canonical_eq`])
//! ignores that order.

use std::collections::HashMap;
use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::ids::IdHasher;

/// Nesting deeper than this is refused when arguments are read, and by the engine, which keeps
/// every recursive walk over arguments (size, equality, validation) shallow.
pub const MAX_DEPTH: usize = 64;

/// The longest JSON text a finite `f64` can print as: 17 significant digits below 1e-6 but
/// above 1e-7 print in full, as in `-0.0000012345678901234567` (25 bytes).
const MAX_NUMBER_LEN: usize = 25;

/// Safe integers (|n| < 2^53) print as their digits.
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
    /// magnitude of 2^53 or more), which counts as 25 bytes, the longest a double prints as: an
    /// upper bound without a number printer. The engine measures args exactly, with
    /// [`json_len_within`](Self::json_len_within) and the printer the host gives it.
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

    /// The exact UTF-8 byte length of this value's compact JSON, a number that is not a safe
    /// integer measured as `number_text` prints it (the browser's `String(n)`, which is how
    /// `JSON.stringify` prints it), or `None` when nesting goes deeper than `limit` levels (as
    /// [`deeper_than`](Self::deeper_than)): both in one walk, which itself never goes deeper
    /// than `limit`.
    pub fn json_len_within(&self, limit: usize, number_text: fn(f64) -> String) -> Option<usize> {
        let items = |n: usize| n.saturating_sub(1);
        match self {
            Value::Array(values) => {
                let inner = limit.checked_sub(1)?;
                values.iter().try_fold(2 + items(values.len()), |len, v| {
                    Some(len + v.json_len_within(inner, number_text)?)
                })
            }
            Value::Object(fields) => {
                let inner = limit.checked_sub(1)?;
                fields
                    .iter()
                    .try_fold(2 + items(fields.len()), |len, (k, v)| {
                        Some(len + string_len(k) + 1 + v.json_len_within(inner, number_text)?)
                    })
            }
            Value::Number(n) if n.is_finite() && !is_safe_integer(*n) => {
                Some(number_text(*n).len())
            }
            scalar => Some(scalar.json_len()),
        }
    }

    /// Deep equality that ignores the order of object keys (`0 == -0`), matching each key by
    /// a scan of the other object's keys: for values whose size the developer chose (a
    /// schema's `const` and `enum`). Arguments an agent chose go through
    /// [`canonical_eq_keyed`](Self::canonical_eq_keyed).
    pub fn canonical_eq(&self, other: &Value) -> bool {
        self.equal(other, None)
    }

    /// [`canonical_eq`](Self::canonical_eq) for two values an agent chose: the keys of a
    /// large object are matched through a map hashed with `hasher` (a scan per key would let
    /// many-keyed args cost quadratic time; a map with keys the agent can know would let it
    /// choose colliding keys).
    pub fn canonical_eq_keyed(&self, other: &Value, hasher: &IdHasher) -> bool {
        self.equal(other, Some(hasher))
    }

    fn equal(&self, other: &Value, hasher: Option<&IdHasher>) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Number(a), Value::Number(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.equal(y, hasher))
            }
            (Value::Object(a), Value::Object(b)) if a.len() == b.len() => match hasher {
                Some(keys) if a.len() > 16 => {
                    let mut others = HashMap::with_capacity_and_hasher(b.len(), *keys);
                    others.extend(b.iter().map(|(k, y)| (k.as_str(), y)));
                    a.iter()
                        .all(|(k, x)| others.get(k.as_str()).is_some_and(|y| x.equal(y, hasher)))
                }
                _ => a.iter().all(|(key, x)| {
                    b.iter()
                        .find(|(k, _)| k == key)
                        .is_some_and(|(_, y)| x.equal(y, hasher))
                }),
            },
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

/// Reads JSON data from any serde format (the host tests read JSON text with serde_json). A
/// repeated key keeps its last value, as `JSON.parse` does; numbers are `f64`, as in JavaScript.
impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON data")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n as f64))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Value::Number(n))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(s.into()))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut fields: Vec<(String, Value)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            match fields.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => fields.push((key, value)),
            }
        }
        Ok(Value::Object(fields))
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
