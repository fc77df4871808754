//! Writing [`Value`]s to JavaScript, and the SDK's own property reads and writes.
//!
//! Writing builds fresh, frozen JS objects; keys like `__proto__` become own data properties.
//! Reading is [`read`](super::read)'s.

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
    } else {
        reflect_set(object, &JsValue::from_str(key), value);
    }
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `Reflect.set` without the exception trampoline: only ever used on the SDK's own fresh,
    /// plain objects, where it cannot throw.
    #[wasm_bindgen(js_namespace = Reflect, js_name = set)]
    fn reflect_set(target: &Object, key: &JsValue, value: &JsValue) -> bool;
}

/// Sets `key` on one of the SDK's own objects (whose keys are fixed names).
pub fn set(object: &Object, key: &str, value: impl Into<JsValue>) {
    reflect_set(object, &JsValue::from_str(key), &value.into());
}

/// Reads `key` from a JS object, `undefined` when it is absent or the read throws.
pub fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}
