//! Plain JSON data: what an agent may pass as arguments, and what the engine snapshots.
//!
//! Objects keep insertion order as a `Vec` of pairs (no duplicate keys), so a record shows the
//! arguments the way they came; equality that matters for security ([`Value::canonical_eq`])
//! ignores that order.

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::error::Error;
use super::float;

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
        self.write_json_as(out, false);
    }

    /// As [`write_json`](Self::write_json), except that `-0` prints as `-0` (which
    /// `JSON.parse` reads back as `-0`): for JSON text that is only a way to hand a value
    /// to JS whole.
    pub(crate) fn write_json_exact(&self, out: &mut String) {
        self.write_json_as(out, true);
    }

    fn write_json_as(&self, out: &mut String, exact: bool) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Number(n) if exact && *n == 0.0 && n.is_sign_negative() => out.push_str("-0"),
            Value::Number(n) => write_number(out, *n),
            Value::String(s) => write_string(out, s),
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json_as(out, exact);
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
                    item.write_json_as(out, exact);
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
                heap_sort(&mut a, |x, y| x.0 < y.0);
                heap_sort(&mut b, |x, y| x.0 < y.0);
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
                if float::is_whole(*n)
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
    float::is_whole(n) && n.abs() < SAFE_INTEGER
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

/// Appends `s` as a JSON string literal, escaped as `JSON.stringify` does.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    let mut run_start = 0;
    for (i, c) in s.bytes().enumerate() {
        if escaped_len(c) == 1 {
            continue;
        }
        // Runs end at ASCII bytes, so `get` never fails (and links no panic message).
        out.push_str(s.get(run_start..i).unwrap_or_default());
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
    out.push_str(s.get(run_start..).unwrap_or_default());
    out.push('"');
}

/// Prints a number the way JavaScript's `Number.prototype.toString` does.
pub(crate) fn write_number(out: &mut String, n: f64) {
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
    // In the browser the page's own `Number.prototype.toString` is the definition, and asking
    // it (through `web`, which owns every crossing) spares the wasm the digit generation below
    // (~1 KB gzip). The host build prints with that digit generation.
    #[cfg(target_arch = "wasm32")]
    out.push_str(&crate::web::js::number_text(n));
    #[cfg(not(target_arch = "wasm32"))]
    write_fraction(out, n);
}

/// [`write_number`] for a finite `n` that is not a safe integer, without the browser.
#[cfg(not(target_arch = "wasm32"))]
fn write_fraction(out: &mut String, n: f64) {
    // The shortest round-trip digits (what Rust's `{:e}` prints, without linking its float
    // formatting); JS only places them differently.
    let (digits, point) = shortest_digits(n.abs()); // `point` is JS's `n`
    let digits = digits.as_slice();
    let k = digits.len() as i32;
    if n < 0.0 {
        out.push('-');
    }
    if k <= point && point <= 21 {
        push_ascii(out, digits);
        push_zeros(out, point - k);
    } else if 0 < point && point <= 21 {
        let (whole, fraction) = digits.split_at(point as usize);
        push_ascii(out, whole);
        out.push('.');
        push_ascii(out, fraction);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        push_zeros(out, -point);
        push_ascii(out, digits);
    } else {
        let (first, rest) = digits.split_at(1);
        push_ascii(out, first);
        if k > 1 {
            out.push('.');
            push_ascii(out, rest);
        }
        out.push('e');
        out.push(if point > 0 { '+' } else { '-' });
        push_decimal(out, u64::from((point - 1).unsigned_abs()));
    }
}

/// `a < b`, or `a <= b` when `inclusive`.
#[cfg(not(target_arch = "wasm32"))] // Only the host prints fractions itself (`write_number`).
fn below(a: &Big, b: &Big, inclusive: bool) -> bool {
    match a.compare(b) {
        Ordering::Less => true,
        Ordering::Equal => inclusive,
        Ordering::Greater => false,
    }
}

/// The shortest decimal digits that read back as `v` (finite, positive), and `k` such that
/// `v ≈ 0.d₁d₂… × 10^k`: exactly what Rust's `flt2dec::strategy::dragon::format_shortest` gives
/// (Steele & White's free-format algorithm on exact big integers), without its tables.
#[cfg(not(target_arch = "wasm32"))]
fn shortest_digits(v: f64) -> (Vec<u8>, i32) {
    // Decode as `flt2dec::decode` does: v = mant·2^exp, its neighbours' midpoints at
    // (mant - minus)·2^exp and (mant + plus)·2^exp, inclusive when the mantissa is even.
    let bits = v.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mant, exp) = if biased == 0 {
        (fraction << 1, -1075)
    } else {
        (fraction | 1 << 52, biased - 1075)
    };
    let inclusive = mant & 1 == 0;
    let (mant, minus, plus, exp) = if biased != 0 && fraction == 0 {
        (mant << 2, 1, 2, exp - 2)
    } else if biased != 0 {
        (mant << 1, 1, 1, exp - 1)
    } else {
        (mant, 1, 1, exp)
    };

    // An estimate of k that is exact or one too small (fixed up below).
    let nbits = 64 - i64::from((mant + plus - 1).leading_zeros());
    let mut k = (((nbits + i64::from(exp)) * 1_292_913_986) >> 32) as i32;

    // v = mant / scale, low = (mant - minus) / scale, high = (mant + plus) / scale, times 10^k.
    let (mut mant, mut minus, mut plus) = (Big::from(mant), Big::from(minus), Big::from(plus));
    let mut scale = Big::from(1);
    if exp < 0 {
        scale.mul_pow2(exp.unsigned_abs());
    } else {
        for b in [&mut mant, &mut minus, &mut plus] {
            b.mul_pow2(exp.unsigned_abs());
        }
    }
    if k >= 0 {
        scale.mul_pow10(k.unsigned_abs());
    } else {
        for b in [&mut mant, &mut minus, &mut plus] {
            b.mul_pow10(k.unsigned_abs());
        }
    }
    if below(&scale, &mant.plus(&plus), inclusive) {
        k += 1;
    } else {
        for b in [&mut mant, &mut minus, &mut plus] {
            b.mul_small(10);
        }
    }

    let mut digits = Vec::new();
    let (down, up) = loop {
        // mant < 10·scale here, so the digit is a handful of subtractions.
        let mut digit = b'0';
        while mant.compare(&scale) != Ordering::Less {
            mant.subtract(&scale);
            digit += 1;
        }
        digits.push(digit);
        let down = below(&mant, &minus, inclusive);
        let up = below(&scale, &mant.plus(&plus), inclusive);
        if down || up {
            break (down, up);
        }
        for b in [&mut mant, &mut minus, &mut plus] {
            b.mul_small(10);
        }
    };
    mant.mul_small(2);
    if up && (!down || mant.compare(&scale) != Ordering::Less) {
        // Round the last digit up, carrying through nines (`flt2dec::round_up`).
        match digits.iter().rposition(|&c| c != b'9') {
            Some(i) => {
                digits[i] += 1;
                digits[i + 1..].fill(b'0');
            }
            None => {
                digits.fill(b'0');
                digits[0] = b'1';
                digits.push(b'0');
                k += 1;
            }
        }
    }
    (digits, k)
}

/// An arbitrary-size unsigned integer (little-endian 32-bit limbs, no high zero limbs): just
/// enough arithmetic for exact float printing ([`shortest_digits`]) and parsing
/// ([`parse_number`]) without linking `core`'s float formatting and parsing tables.
#[derive(Clone)]
struct Big(Vec<u32>);

impl From<u64> for Big {
    fn from(n: u64) -> Big {
        let mut big = Big(vec![n as u32, (n >> 32) as u32]);
        big.trim();
        big
    }
}

impl Big {
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0;
        for limb in &mut self.0 {
            let v = u64::from(*limb) * u64::from(factor) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    fn mul_pow2(&mut self, mut n: u32) {
        while n > 31 {
            self.mul_small(1 << 31);
            n -= 31;
        }
        self.mul_small(1 << n);
    }

    fn mul_pow10(&mut self, mut n: u32) {
        while n > 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        self.mul_small(10u32.pow(n));
    }

    fn plus(&self, other: &Big) -> Big {
        let (long, short) = if self.0.len() >= other.0.len() {
            (self, other)
        } else {
            (other, self)
        };
        let mut sum = long.clone();
        let mut carry = 0;
        for (i, limb) in sum.0.iter_mut().enumerate() {
            let v = u64::from(*limb) + u64::from(short.0.get(i).copied().unwrap_or(0)) + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry > 0 {
            sum.0.push(carry as u32);
        }
        sum
    }

    /// `self -= other`, for `self >= other`.
    fn subtract(&mut self, other: &Big) {
        let mut borrow = false;
        for (i, limb) in self.0.iter_mut().enumerate() {
            let (v, o1) = limb.overflowing_sub(other.0.get(i).copied().unwrap_or(0));
            let (v, o2) = v.overflowing_sub(u32::from(borrow));
            *limb = v;
            borrow = o1 || o2;
        }
        self.trim();
    }

    fn compare(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn bit_len(&self) -> i32 {
        self.0.last().map_or(0, |top| {
            32 * self.0.len() as i32 - top.leading_zeros() as i32
        })
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
}

/// Exact powers of ten that an `f64` holds, for [`parse_number`]'s fast path.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Significant digits kept by [`parse_number`]: a halfway point between two doubles has at most
/// 767, so these plus one sticky digit decide every rounding exactly (as in `core`'s `dec2flt`).
const MAX_PARSE_DIGITS: usize = 768;

/// Reads a number in JSON's grammar (already checked) as the nearest `f64`, ties to even:
/// exactly what `str::parse::<f64>` gives (infinity when it overflows), without linking its
/// 10 KB table of powers.
fn parse_number(text: &[u8]) -> f64 {
    let negative = text.first() == Some(&b'-');
    let mut digits: Vec<u8> = Vec::new();
    let mut exp: i64 = 0;
    let mut fraction = false;
    let mut rest = text.iter();
    for &c in rest.by_ref() {
        match c {
            b'0'..=b'9' => {
                if digits.is_empty() && c == b'0' {
                    // A leading zero adds nothing (after the point it still shifts the value).
                } else {
                    digits.push(c - b'0');
                }
                if fraction {
                    exp -= 1;
                }
            }
            b'.' => fraction = true,
            b'e' | b'E' => break,
            _ => {} // the sign
        }
    }
    let mut exp_negative = false;
    let mut exp_value: i64 = 0;
    for &c in rest {
        match c {
            b'-' => exp_negative = true,
            b'0'..=b'9' => exp_value = (exp_value * 10 + i64::from(c - b'0')).min(1 << 40),
            _ => {}
        }
    }
    exp += if exp_negative { -exp_value } else { exp_value };
    while digits.last() == Some(&0) {
        digits.pop();
        exp += 1;
    }
    let value = parse_digits(digits, exp);
    if negative {
        -value
    } else {
        value
    }
}

/// The nearest `f64` to `digits × 10^exp` (`digits`: decimal digit values, no leading or
/// trailing zeros).
fn parse_digits(mut digits: Vec<u8>, mut exp: i64) -> f64 {
    let magnitude = digits.len() as i64 + exp; // value < 10^magnitude
    if digits.is_empty() || magnitude < -324 {
        return 0.0;
    }
    if magnitude > 310 {
        return f64::INFINITY;
    }
    if digits.len() > MAX_PARSE_DIGITS {
        // The cut digits end in a non-zero one, so a final 1 keeps "a bit more than this".
        exp += (digits.len() - MAX_PARSE_DIGITS - 1) as i64;
        digits.truncate(MAX_PARSE_DIGITS);
        digits.push(1);
    }
    if digits.len() <= 15 && (-22..=22).contains(&exp) {
        // Clinger's fast path: both operands exact, so one rounding.
        let m = digits.iter().fold(0u64, |m, &d| m * 10 + u64::from(d)) as f64;
        let p = POW10[exp.unsigned_abs() as usize];
        return if exp < 0 { m / p } else { m * p };
    }
    // Exact: value = num / den; find 56 bits of the quotient and whether a remainder is left.
    let mut num = Big::from(0);
    for chunk in digits.chunks(9) {
        num.mul_pow10(chunk.len() as u32);
        let part = chunk.iter().fold(0u64, |m, &d| m * 10 + u64::from(d));
        num = num.plus(&Big::from(part));
    }
    let mut den = Big::from(1);
    let exp = exp as i32; // |exp| < 1100 here
    if exp >= 0 {
        num.mul_pow10(exp.unsigned_abs());
    } else {
        den.mul_pow10(exp.unsigned_abs());
    }
    // Scale so that the quotient lies in [2^54, 2^56).
    let shift = 55 - (num.bit_len() - den.bit_len());
    if shift >= 0 {
        num.mul_pow2(shift.unsigned_abs());
    } else {
        den.mul_pow2(shift.unsigned_abs());
    }
    den.mul_pow2(55);
    let mut quotient: u64 = 0;
    for _ in 0..56 {
        quotient <<= 1;
        if num.compare(&den) != Ordering::Less {
            num.subtract(&den);
            quotient |= 1;
        }
        num.mul_small(2);
    }
    assemble(quotient, -shift, !num.is_zero())
}

/// The nearest `f64` to `(q + ε) × 2^exp2`, ties to even, where `ε` is 0 or (when `sticky`) a
/// positive fraction below 1; `q` has 54 to 56 significant bits.
fn assemble(q: u64, exp2: i32, sticky: bool) -> f64 {
    let bits = 64 - q.leading_zeros() as i32;
    let top = exp2 + bits - 1; // the exponent of q's leading bit
    if top > 1023 {
        return f64::INFINITY;
    }
    // Bits to drop: down to 53 significant ones, or to the 2^-1074 unit below the normals.
    let drop = if top >= -1022 {
        bits - 53
    } else {
        -1074 - exp2
    };
    if drop > 64 {
        return 0.0;
    }
    let q = u128::from(q);
    let kept = q >> drop;
    let rest = q - (kept << drop);
    let half = (1u128 << drop) >> 1;
    let up = rest > half || (rest == half && drop > 0 && (sticky || kept & 1 == 1));
    let mantissa = (kept + u128::from(up)) as u64;
    if top >= -1022 {
        // The hidden bit (and a carry out of the mantissa) lands in the exponent field.
        f64::from_bits((((top + 1022) as u64) << 52) + mantissa)
    } else {
        f64::from_bits(mantissa)
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

/// An in-place heapsort: O(n log n) on any input (args can be large and agent-chosen), and a
/// few hundred bytes of wasm where `sort_unstable_by` costs kilobytes. Not stable.
pub(crate) fn heap_sort<T>(items: &mut [T], less: impl Fn(&T, &T) -> bool) {
    let sift_down = |items: &mut [T], mut node: usize, end: usize| loop {
        let mut child = 2 * node + 1;
        if child >= end {
            break;
        }
        if child + 1 < end && less(&items[child], &items[child + 1]) {
            child += 1;
        }
        if !less(&items[node], &items[child]) {
            break;
        }
        items.swap(node, child);
        node = child;
    };
    let len = items.len();
    for node in (0..len / 2).rev() {
        sift_down(items, node, len);
    }
    for end in (1..len).rev() {
        items.swap(0, end);
        sift_down(items, 0, end);
    }
}

/// Appends ASCII bytes (digits) without a UTF-8 check.
#[cfg(not(target_arch = "wasm32"))]
fn push_ascii(out: &mut String, ascii: &[u8]) {
    for &b in ascii {
        out.push(char::from(b));
    }
}

#[cfg(not(target_arch = "wasm32"))]
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
        match parse_number(&self.bytes[start..self.pos]) {
            n if n.is_finite() => Ok(Value::Number(n)),
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
            out.push_str(self.text.get(run_start..self.pos).unwrap_or_default());
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

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;
    use core::fmt::Write as _;

    /// The digits and point from Rust's own float formatting, as `write_number` once used.
    #[cfg(not(target_arch = "wasm32"))]
    fn reference(v: f64) -> (String, i32) {
        let sci = format!("{v:e}");
        let (mantissa, exponent) = sci.split_once('e').unwrap();
        let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
        (digits, exponent.parse::<i32>().unwrap() + 1)
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))] // The browser's own printing is checked in web_api.
    fn shortest_digits_match_rust_formatting() {
        let mut specials = vec![
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::EPSILON,
            5e-324,
            1e-323,
            f64::from_bits(0x000f_ffff_ffff_ffff), // the largest subnormal
            0.1,
            0.2,
            0.1 + 0.2,
            1.0 / 3.0,
            2.5,
            1e21,
            1e22,
            1e23,
            123_456_789_012_345_680_000.0,
            1e-7,
            1.5e-7,
            9_007_199_254_740_993.0,
            f64::from_bits(0x44b5_2d02_c7e1_4af6), // 1e23's neighbour
        ];
        for e in -1074..=1023 {
            specials.push(2f64.powi(e));
            specials.push(2f64.powi(e) * 1.5);
        }
        for e in -323..=308 {
            specials.push(format!("1e{e}").parse().unwrap());
            specials.push(format!("9.87654321e{e}").parse().unwrap());
        }
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..5_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let v = f64::from_bits(state & !(1 << 63));
            if v.is_finite() && v > 0.0 {
                specials.push(v);
            }
        }
        for v in specials.into_iter().filter(|v| *v > 0.0 && v.is_finite()) {
            let (digits, point) = shortest_digits(v);
            let digits = String::from_utf8(digits).unwrap();
            assert_eq!((digits, point), reference(v), "{v:e}");
        }
    }

    #[test]
    fn numbers_print_as_javascript_does() {
        let cases = [
            (0.5, "0.5"),
            (-2.5, "-2.5"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (0.000001, "0.000001"),
            (123.456, "123.456"),
            (0.1 + 0.2, "0.30000000000000004"),
            (5e-324, "5e-324"),
            (9_007_199_254_740_992.0, "9007199254740992"),
            (1e20, "100000000000000000000"),
        ];
        for (n, text) in cases {
            let mut out = String::new();
            write_number(&mut out, n);
            assert_eq!(out, text);
        }
        let mut out = String::new();
        let _ = write!(out, "{}", Value::Number(-0.0));
        assert_eq!(out, "0");
    }

    #[test]
    fn numbers_parse_as_rust_parses_them() {
        let mut texts: Vec<String> = [
            "0",
            "-0",
            "0.0",
            "-0.0e7",
            "1",
            "-1",
            "1.5",
            "0.1",
            "0.30000000000000004",
            "1e22",
            "1e23",
            "9007199254740993",
            "9007199254740995",
            "9007199254740992.5",
            "18446744073709551615",
            "1.7976931348623157e308",
            "1.7976931348623158e308",
            "1.7976931348623159e308",
            "1e309",
            "1e-400",
            "5e-324",
            "2e-324",
            "3e-324",
            "2.4703282292062327e-324",
            "2.4703282292062328e-324",
            "2.2250738585072011e-308",
            "2.2250738585072012e-308",
            "2.2250738585072014e-308",
            "4.9406564584124654e-324",
            "123456789012345678901234567890",
            "0.000000000000000000000000000001",
            "1e100000000000000000000",
            "1e-100000000000000000000",
            "7.2057594037927933e16",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        // The exact midpoint between the two smallest subnormals, and just off it.
        let half = format!("{:.1100e}", 5e-324_f64 / 2.0 * 2.0);
        texts.push(half.clone());
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3_000 {
            let v = f64::from_bits(next() & !(1 << 63));
            if !v.is_finite() {
                continue;
            }
            texts.push(format!("{v:e}"));
            texts.push(format!("{v}"));
            // Long expansions, cut at random places: these land near halfway points.
            let long = format!("{v:.60e}");
            let (mantissa, exponent) = long.split_once('e').unwrap();
            let cut = 2 + (next() % 50) as usize;
            texts.push(format!("{}e{exponent}", &mantissa[..cut]));
            texts.push(format!("{}5e{exponent}", &mantissa[..cut]));
            texts.push(format!(
                "{}49999999999999999999e{exponent}",
                &mantissa[..cut]
            ));
            texts.push(format!(
                "{}50000000000000000001e{exponent}",
                &mantissa[..cut]
            ));
        }
        // Exact decimal expansions of midpoints between neighbouring doubles.
        for _ in 0..300 {
            let v = f64::from_bits(next() & 0x7fef_ffff_ffff_ffff);
            let exact = format!("{:.1100e}", v);
            texts.push(exact);
        }
        texts.push(format!("{}e-330", "1".repeat(2000)));
        texts.push(format!("0.{}1", "0".repeat(1000)));
        for text in texts {
            let expected: f64 = text.parse().unwrap();
            let got = parse_number(text.as_bytes());
            assert_eq!(got.to_bits(), expected.to_bits(), "{text}");
        }
    }

    #[test]
    fn heap_sort_sorts() {
        let mut state = 7_u32;
        for len in 0..64 {
            let mut items: Vec<u32> = (0..len)
                .map(|_| {
                    state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                    state >> 20
                })
                .collect();
            let mut expected = items.clone();
            expected.sort_unstable();
            heap_sort(&mut items, |a, b| a < b);
            assert_eq!(items, expected);
        }
    }
}
