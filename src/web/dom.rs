//! Building the SDK's own DOM through web-sys: a host element with a closed shadow root, and
//! elements whose text is always set as `textContent`, never parsed as markup.
//!
//! The card and the Hand-mode badge and switch are each drawn from a plain model with these two
//! functions (the Watch panel is drawn by `src/js/page.js`, on the same kind of host). See MDN,
//! [`attachShadow`](https://developer.mozilla.org/docs/Web/API/Element/attachShadow).

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement, Node, ShadowRoot};

use super::js;

/// The document `node` belongs to (the SDK draws into elements and shadow roots, never into a
/// document itself).
pub(crate) fn document_of(node: &Node) -> Result<Document, JsValue> {
    node.owner_document()
        .ok_or_else(|| JsValue::from_str("coworkkit: the element is in no document"))
}

/// A `<tag data-coworkkit=kind>` made in `parent`'s document and appended to `parent`, with a
/// closed shadow root styled with `kind`'s stylesheet (`ckShadowRoot`, `src/js/page.js`, where
/// the sheets and the reasons for this shape are). Returns the host and the root.
pub(crate) fn shadow_host(
    parent: &Node,
    tag: &str,
    kind: &str,
) -> Result<(Element, ShadowRoot), JsValue> {
    let root = js::shadow_root(parent, tag, kind)?;
    Ok((root.host(), root))
}

/// Creates `<tag>` with `attrs` (name, value pairs; a pair with an empty name is skipped) and
/// `text` as its `textContent` (none when empty), appends it to `parent` and returns it.
///
/// For the SDK's own elements inside its shadow roots: standard HTML tags and valid attribute
/// names, a fresh element appended to the SDK's own tree. None of these DOM calls can throw
/// then, so no error is carried back to every caller (were `createElement` ever to fail, the
/// call would throw to JavaScript).
pub(crate) fn el(parent: &Node, tag: &str, attrs: &[(&str, &str)], text: &str) -> Element {
    let element = document_of(parent)
        .and_then(|document| document.create_element(tag))
        .unwrap_throw();
    for (name, value) in attrs.iter().filter(|(name, _)| !name.is_empty()) {
        let _ = element.set_attribute(name, value);
    }
    if !text.is_empty() {
        element.set_text_content(Some(text));
    }
    let _ = parent.append_child(&element);
    element
}

/// Sets or removes the `hidden` attribute.
pub(crate) fn set_hidden(element: &Element, hidden: bool) {
    // The `hidden` property reflects the attribute, and setting it cannot throw.
    element.unchecked_ref::<HtmlElement>().set_hidden(hidden);
}
