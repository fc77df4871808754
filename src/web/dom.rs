//! Building the SDK's own DOM through web-sys: a host element with a closed shadow root, and
//! elements whose text is always set as `textContent`, never parsed as markup.
//!
//! The card, the Hand-mode badge and switch, and the Watch panel are each drawn from a plain
//! model with these two functions. See MDN,
//! [`attachShadow`](https://developer.mozilla.org/docs/Web/API/Element/attachShadow).

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement, Node, ShadowRoot, ShadowRootInit, ShadowRootMode};

/// The document `node` belongs to (the SDK draws into elements and shadow roots, never into a
/// document itself).
pub(crate) fn document_of(node: &Node) -> Result<Document, JsValue> {
    node.owner_document()
        .ok_or_else(|| JsValue::from_str("coworkkit: the element is in no document"))
}

/// A `<tag data-coworkkit=kind>` made in `parent`'s document and appended to `parent`, with a
/// closed shadow root that holds one `<style>` of `css`. Returns the host and the root.
///
/// Closed, so neither the page's scripts nor an agent's element actions can reach inside; the
/// `data-coworkkit` attribute is how element actions recognise the SDK's own DOM and refuse it.
/// For the same reason the host may go into the page before its content is drawn: no script of
/// the page (nor a mutation observer) sees inside, and nothing renders before the drawing ends.
pub(crate) fn shadow_host(
    parent: &Node,
    tag: &str,
    kind: &str,
    css: &str,
) -> Result<(Element, ShadowRoot), JsValue> {
    let host = document_of(parent)?.create_element(tag)?;
    let _ = host.set_attribute("data-coworkkit", kind);
    let root = host.attach_shadow(&ShadowRootInit::new(ShadowRootMode::Closed))?;
    el(&root, "style", &[], css);
    parent.append_child(&host)?;
    Ok((host, root))
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
