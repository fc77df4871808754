//! Writing [`Value`]s to JavaScript, and the JS strings the SDK hands out again and again.
//!
//! Writing builds fresh, frozen JS objects; keys like `__proto__` become own data properties.
//! Reading is [`read`](super::read)'s.

use std::cell::RefCell;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::JsValue;

use crate::core::value::Value;

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
