//! Crossing the boundary: JavaScript values to [`Value`] and back, without serde on the hot path.
//!
//! Reading walks the JS value once with `typeof` checks and `Reflect`, refusing anything that is
//! not plain JSON data (functions, symbols, `BigInt`, class instances, non-finite numbers,
//! cycles) with a message that names the path, and stops early once the JSON would exceed the
//! size limit, so a hostile million-key object costs no more than the limit allows.
//! Writing builds fresh, frozen JS objects; keys like `__proto__` become own data properties.

use std::cell::RefCell;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::JsValue;

use crate::core::error::Error;
use crate::core::value::Value;

#[wasm_bindgen]
extern "C" {
    // js-sys declares these as infallible, but a revoked Proxy or a throwing trap makes them
    // throw; an exception crossing wasm would make `invoke` throw and skip our cleanup.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn try_is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn try_keys(value: &JsValue) -> Result<Array, JsValue>;
}

/// Deeper than this is refused: it is never useful for an agent's arguments, and it bounds the
/// recursion (a cyclic object is caught here too).
pub const MAX_DEPTH: usize = 64;

/// Reads a JS value as plain JSON data. `budget` is the largest JSON size (in UTF-8 bytes)
/// that is acceptable; going past it is `args_too_large` even before the walk ends.
pub fn read_value(value: &JsValue, budget: usize) -> Result<Value, Error> {
    let mut reader = Reader { spent: 0, budget };
    let mut path = String::from("args");
    reader.read(value, &mut path, 0)
}

struct Reader {
    spent: usize,
    budget: usize,
}

impl Reader {
    fn spend(&mut self, bytes: usize) -> Result<(), Error> {
        self.spent += bytes;
        if self.spent > self.budget {
            return Err(Error::ArgsTooLarge {
                size: self.spent,
                max: self.budget,
            });
        }
        Ok(())
    }

    fn read(&mut self, value: &JsValue, path: &mut String, depth: usize) -> Result<Value, Error> {
        if depth > MAX_DEPTH {
            return Err(not_json(path, "is nested too deeply (or is cyclic)"));
        }
        if value.is_null() {
            self.spend(4)?;
            return Ok(Value::Null);
        }
        if let Some(b) = value.as_bool() {
            self.spend(if b { 4 } else { 5 })?;
            return Ok(Value::Bool(b));
        }
        if let Some(n) = value.as_f64() {
            if !n.is_finite() {
                return Err(not_json(path, "is not a finite number"));
            }
            self.spend(number_len(n))?;
            return Ok(Value::Number(n));
        }
        if let Some(s) = value.as_string() {
            self.spend(s.len() + 2)?;
            return Ok(Value::String(s));
        }
        if try_is_array(value).map_err(|_| not_json(path, "cannot be read"))? {
            // Through `Reflect`: an array's length and items may be Proxy traps or getters.
            let len = Reflect::get(value, &JsValue::from_str("length"))
                .ok()
                .and_then(|n| n.as_f64())
                .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX))
                .ok_or_else(|| not_json(path, "has an unreadable length"))?
                as u32;
            self.spend(2 + len.saturating_sub(1) as usize)?;
            let mut items = Vec::with_capacity(len.min(1024) as usize);
            for i in 0..len {
                let mark = path.len();
                push_index(path, i);
                let item = Reflect::get_u32(value, i)
                    .map_err(|_| not_json(path, "has a throwing getter"))?;
                if item.is_undefined() {
                    return Err(not_json(path, "is undefined"));
                }
                items.push(self.read(&item, path, depth + 1)?);
                path.truncate(mark);
            }
            return Ok(Value::Array(items));
        }
        if value.is_object() && !value.is_function() && is_plain_object(value) {
            let keys = try_keys(value).map_err(|_| not_json(path, "cannot be read"))?;
            let mut fields = Vec::with_capacity(keys.length().min(1024) as usize);
            self.spend(2)?;
            for key in keys.iter() {
                let name = key.as_string().unwrap_or_default();
                let item = Reflect::get(value, &key)
                    .map_err(|_| not_json(path, "has a throwing getter"))?;
                if item.is_undefined() {
                    continue; // as JSON.stringify does: an undefined property is absent
                }
                self.spend(name.len() + 4)?;
                let mark = path.len();
                path.push('.');
                path.push_str(&name);
                fields.push((name, self.read(&item, path, depth + 1)?));
                path.truncate(mark);
            }
            return Ok(Value::Object(fields));
        }
        let what = if value.is_undefined() {
            "is undefined"
        } else if value.is_function() {
            "is a function"
        } else if value.is_symbol() {
            "is a symbol"
        } else if value.is_bigint() {
            "is a BigInt"
        } else {
            "is not a plain object"
        };
        Err(not_json(path, what))
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

fn push_index(path: &mut String, i: u32) {
    path.push('[');
    path.push_str(&i.to_string());
    path.push(']');
}

/// An upper bound on the length of a number's JSON text; exact for the usual small integers.
fn number_len(n: f64) -> usize {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        let mut digits = 1;
        let mut rest = n.abs() as u64 / 10;
        while rest > 0 {
            digits += 1;
            rest /= 10;
        }
        digits + usize::from(n < 0.0)
    } else {
        25
    }
}

/// Plain means a prototype that is `null` or has none itself (`Object.prototype` of any realm):
/// no class instances, dates, maps, typed arrays or DOM nodes.
/// Read through `Reflect` (which reports a throw): a Proxy's `getPrototypeOf` trap may throw,
/// and such a value is not plain.
fn is_plain_object(value: &JsValue) -> bool {
    match Reflect::get_prototype_of(value) {
        Ok(proto) if proto.is_null() => true,
        Ok(proto) => Reflect::get_prototype_of(&proto).is_ok_and(|p| p.is_null()),
        Err(_) => false,
    }
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

thread_local! {
    static KEYS: RefCell<Vec<(usize, JsValue)>> = const { RefCell::new(Vec::new()) };
    static NAMES: RefCell<Vec<(String, JsValue)>> = const { RefCell::new(Vec::new()) };
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
/// keys, a call's id, which its `ctx`, record and outcome all carry): a small least-recently-used
/// cache by content, so each is decoded from wasm memory once rather than per object.
pub fn name(text: &str) -> JsValue {
    const SLOTS: usize = 64;
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some(at) = names.iter().position(|(s, _)| s == text) {
            // Most recently used last: a hot action's name and its args' keys stay while
            // each call's one-off id passes through.
            let hit = names.remove(at);
            let js = hit.1.clone();
            names.push(hit);
            return js;
        }
        let js = JsValue::from_str(text);
        if names.len() == SLOTS {
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

/// Sets `key` on one of the SDK's own objects (whose keys are fixed names).
pub fn set(object: &Object, key_name: &'static str, value: impl Into<JsValue>) {
    reflect_set(object, &key(key_name), &value.into());
}

/// Reads `key` from a JS object, `undefined` when it is absent or the read throws.
pub fn get(object: &JsValue, key_name: &'static str) -> JsValue {
    Reflect::get(object, &key(key_name)).unwrap_or(JsValue::UNDEFINED)
}
