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
    // js-sys declares this as infallible, but a revoked Proxy or a throwing trap makes it
    // throw; an exception crossing wasm would make `invoke` throw and skip our cleanup.
    // (`ckKind` in js.rs likewise catches for `Array.isArray` and `getPrototypeOf`.)
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
        // One crossing says what the value is; a second reads it.
        match super::js::kind(value) {
            0 => {
                self.spend(4)?;
                Ok(Value::Null)
            }
            1 => {
                let b = value.is_truthy();
                self.spend(if b { 4 } else { 5 })?;
                Ok(Value::Bool(b))
            }
            2 => {
                let n = value.as_f64().unwrap_or(f64::NAN);
                if !n.is_finite() {
                    return Err(not_json(path, "is not a finite number"));
                }
                self.spend(number_len(n))?;
                Ok(Value::Number(n))
            }
            3 => {
                let s = value.as_string().unwrap_or_default();
                self.spend(s.len() + 2)?;
                Ok(Value::String(s))
            }
            4 => self.read_array(value, path, depth),
            5 => self.read_object(value, path, depth),
            kind => Err(not_json(
                path,
                match kind {
                    6 => "is undefined",
                    7 => "is a function",
                    9 => "cannot be read",
                    10 => "is a symbol",
                    11 => "is a BigInt",
                    _ => "is not a plain object",
                },
            )),
        }
    }

    fn read_array(
        &mut self,
        value: &JsValue,
        path: &mut String,
        depth: usize,
    ) -> Result<Value, Error> {
        // Through `Reflect`: an array's length and items may be Proxy traps or getters.
        let len = Reflect::get(value, &key("length"))
            .ok()
            .and_then(|n| n.as_f64())
            .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n <= f64::from(u32::MAX))
            .ok_or_else(|| not_json(path, "has an unreadable length"))? as u32;
        self.spend(2 + len.saturating_sub(1) as usize)?;
        let mut items = Vec::with_capacity(len.min(1024) as usize);
        for i in 0..len {
            let mark = path.len();
            push_index(path, i);
            let item =
                Reflect::get_u32(value, i).map_err(|_| not_json(path, "has a throwing getter"))?;
            if item.is_undefined() {
                return Err(not_json(path, "is undefined"));
            }
            items.push(self.read(&item, path, depth + 1)?);
            path.truncate(mark);
        }
        Ok(Value::Array(items))
    }

    fn read_object(
        &mut self,
        value: &JsValue,
        path: &mut String,
        depth: usize,
    ) -> Result<Value, Error> {
        let keys = try_keys(value).map_err(|_| not_json(path, "cannot be read"))?;
        let mut fields = Vec::with_capacity(keys.length().min(1024) as usize);
        self.spend(2)?;
        for key in keys.iter() {
            let name = key.as_string().unwrap_or_default();
            let item =
                Reflect::get(value, &key).map_err(|_| not_json(path, "has a throwing getter"))?;
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
        Ok(Value::Object(fields))
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

/// Puts a string that came from JS into the name cache with its own JS value, so giving it back
/// costs no decode.
pub fn seed_name(text: &str, js: &JsValue) {
    if text.len() > 300 {
        return;
    }
    NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if names.iter().any(|(s, _)| s == text) {
            return;
        }
        if names.len() == NAME_SLOTS {
            names.remove(0);
        }
        names.push((text.to_owned(), js.clone()));
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
