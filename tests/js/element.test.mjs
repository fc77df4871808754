// The rules src/js/page.js enforces: which element an agent may touch and for which
// operation, in which order the checks run, how a select's option is matched, and how the
// operation reaches the page. In jsdom (a DOM without layout), with the stubs described below.
import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { ckHand } from "../../src/js/page.js";
import * as codes from "../../src/js/codes.js";

// The npm test tooling (one lock for every tool) lives in tests/e2e.
const require = createRequire(new URL("../e2e/package.json", import.meta.url));
const { JSDOM } = require("jsdom");

const { window } = new JSDOM("<!doctype html><html><body></body></html>");
// page.js uses the page's globals, as it does in a browser.
for (const name of ["document", "ShadowRoot", "HTMLElement", "HTMLInputElement", "HTMLTextAreaElement", "HTMLSelectElement", "Event", "getComputedStyle"]) {
  globalThis[name] = window[name];
}
const { document } = window;

// jsdom has no layout, so every box is 0 × 0: this stands in for a browser's layout, giving an
// element a 10 × 10 box unless it or an ancestor is `display: none` (no box at all) or the test
// marks it `data-zero-size` (an empty inline element, say).
window.Element.prototype.getBoundingClientRect = function () {
  let size = 10;
  for (let e = this; e; e = e.parentElement) {
    if (window.getComputedStyle(e).display === "none") size = 0;
  }
  if (this.hasAttribute("data-zero-size")) size = 0;
  return { x: 0, y: 0, top: 0, left: 0, width: size, height: size, right: size, bottom: size };
};
// jsdom lacks `checkVisibility`; when a test sets `visibilityAnswer`, this stands in for a
// browser's (which also sees `content-visibility`, which jsdom does not compute).
let visibilityAnswer;
window.Element.prototype.checkVisibility = function () {
  if (visibilityAnswer === "throw") throw new Error("not supported");
  return visibilityAnswer ?? true;
};

const { OP_CLICK, OP_FILL, OP_SELECT } = codes;
beforeEach(() => {
  document.body.innerHTML = "";
  visibilityAnswer = undefined;
});
/** Puts `html` in the page and returns the element with id `t`. */
function page(html) {
  document.body.innerHTML = html;
  return document.getElementById("t");
}
/** What `ckHand` answers for `target` without acting. */
const check = (target, op = OP_CLICK, value) => ckHand(target, op, value, false);

test("a missing element: no match, or not in the document", () => {
  assert.equal(check("#nothing"), codes.ELEMENT_MISSING);
  assert.equal(check(document.createElement("button")), codes.ELEMENT_DETACHED);
  const removed = page('<button id="t">b</button>');
  removed.remove();
  assert.equal(check(removed), codes.ELEMENT_DETACHED);
  page('<button id="t">b</button>');
  assert.equal(check("#t"), undefined, "a selector is resolved now");
});

test("a malformed selector throws (the Rust caller turns it into a failed run)", () => {
  assert.throws(() => check("##"), { name: "SyntaxError" });
});

test("the SDK's own DOM, across shadow roots, is never the agent's", () => {
  assert.equal(check(page('<div data-coworkkit="card"><button id="t">Confirm</button></div>')), codes.ELEMENT_OWN_DOM);
  for (const mode of ["open", "closed"]) {
    const holder = page('<div data-coworkkit="watch" id="t"></div>');
    const nested = document.createElement("div");
    holder.attachShadow({ mode }).append(nested);
    const button = document.createElement("button");
    // A shadow root inside the SDK's shadow root: every host on the way up is looked at.
    nested.attachShadow({ mode }).append(button);
    assert.equal(check(button), codes.ELEMENT_OWN_DOM, mode);
  }
  const appHost = page('<div id="t"></div>');
  const button = document.createElement("button");
  appHost.attachShadow({ mode: "open" }).append(button);
  assert.equal(check(button), undefined, "an app's own shadow DOM is fine");
});

test("inert: on the element or an ancestor", () => {
  assert.equal(check(page('<button id="t" inert>b</button>')), codes.ELEMENT_INERT);
  assert.equal(check(page('<section inert><div><button id="t">b</button></div></section>')), codes.ELEMENT_INERT);
});

test("hidden: a hidden ancestor, not rendered, not visible, or of no size", () => {
  assert.equal(check(page('<div hidden><button id="t">b</button></div>')), codes.ELEMENT_HIDDEN);
  assert.equal(check(page('<div style="display:none"><button id="t">b</button></div>')), codes.ELEMENT_HIDDEN);
  assert.equal(check(page('<div style="visibility:hidden"><button id="t">b</button></div>')), codes.ELEMENT_HIDDEN);
  assert.equal(check(page('<button id="t" style="visibility:collapse">b</button>')), codes.ELEMENT_HIDDEN);
  assert.equal(check(page('<button id="t" data-zero-size>b</button>')), codes.ELEMENT_HIDDEN);
  assert.equal(check(page('<div style="visibility:hidden"><button id="t" style="visibility:visible">b</button></div>')), undefined,
    "visibility is the element's own, as computed");
});

test("hidden: the browser's checkVisibility is asked first, and its failure skips nothing", () => {
  const button = page('<button id="t">b</button>');
  visibilityAnswer = false;
  assert.equal(check(button), codes.ELEMENT_HIDDEN);
  visibilityAnswer = "throw";
  assert.equal(check(button), undefined);
  button.setAttribute("data-zero-size", "");
  assert.equal(check(button), codes.ELEMENT_HIDDEN, "the size is still checked");
});

test("disabled: :disabled (a disabled fieldset too) or aria-disabled=true", () => {
  assert.equal(check(page('<button id="t" disabled>b</button>')), codes.ELEMENT_DISABLED);
  assert.equal(check(page('<fieldset disabled><input id="t"></fieldset>'), OP_FILL), codes.ELEMENT_DISABLED);
  assert.equal(check(page('<div id="t" aria-disabled="true">d</div>')), codes.ELEMENT_DISABLED);
  assert.equal(check(page('<div id="t" aria-disabled="false">d</div>')), undefined);
});

test("the checks run in order: the first one failed is the one answered", () => {
  assert.equal(check(page('<div data-coworkkit="x" inert hidden><button id="t" disabled>b</button></div>')), codes.ELEMENT_OWN_DOM);
  assert.equal(check(page('<div inert hidden><button id="t" disabled>b</button></div>')), codes.ELEMENT_INERT);
  assert.equal(check(page('<div hidden><button id="t" disabled>b</button></div>')), codes.ELEMENT_HIDDEN);
  assert.equal(check(page('<div id="t" aria-disabled="true">x</div>'), OP_SELECT), codes.ELEMENT_DISABLED, "disabled before the wrong kind");
});

test("the element's kind must suit the operation", () => {
  const svg = page('<svg><rect id="t" width="5" height="5"></rect></svg>');
  assert.equal(check(svg, OP_CLICK), codes.ELEMENT_NOT_HTML);
  assert.equal(check(page('<div id="t">x</div>'), OP_FILL), codes.ELEMENT_NOT_EDITABLE);
  assert.equal(check(page('<input id="t" readonly>'), OP_FILL), codes.ELEMENT_NOT_EDITABLE);
  assert.equal(check(page('<input id="t" type="checkbox">'), OP_FILL), codes.ELEMENT_NOT_EDITABLE);
  assert.equal(check(page('<input id="t">'), OP_FILL), undefined);
  assert.equal(check(page('<textarea id="t"></textarea>'), OP_FILL), undefined);
  assert.equal(check(page('<input id="t">'), OP_SELECT), codes.ELEMENT_NOT_SELECT);
  assert.equal(check(page('<div id="t">x</div>'), OP_CLICK), undefined, "any HTML element can be clicked");
});

test("select: the enabled option whose value, else whose trimmed label, is the one asked for", () => {
  const select = page(`<select id="t">
    <option value="a">Alpha</option>
    <option value="b" disabled>Beta</option>
    <option value="Gamma">  Delta\u00a0</option>
    <option value="d">Gamma</option>
    <option value="x\ud800">Lone</option>
  </select>`);
  const chosen = (value) => ckHand(select, OP_SELECT, value, true);
  assert.equal(chosen("a"), "a");
  assert.equal(chosen("Alpha"), "a", "by label when no value matches");
  assert.equal(chosen("Gamma"), "Gamma", "a value match wins over a label match");
  assert.equal(chosen(" Delta "), "Gamma", "labels compared trimmed, as Rust's str::trim trims");
  assert.equal(chosen("x\ufffd"), "x\ufffd", "values compared as Rust sees them");
  assert.equal(check(select, OP_SELECT, "b"), codes.ELEMENT_NO_OPTION, "a disabled option is not offered");
  assert.equal(check(select, OP_SELECT, "Beta"), codes.ELEMENT_NO_OPTION);
  assert.equal(check(select, OP_SELECT, "zzz"), codes.ELEMENT_NO_OPTION);
  assert.equal(check(select, OP_SELECT, undefined), undefined, "without a value only the element is checked");
});

/** Records the events `e` receives, and whether each bubbled and was composed. */
function events(e) {
  const seen = [];
  for (const kind of ["click", "input", "change"]) {
    document.addEventListener(kind, (ev) => { if (ev.target === e) seen.push(`${kind}${ev.bubbles ? "^" : ""}${ev.composed ? "c" : ""}`); });
  }
  return seen;
}

test("nothing happens without `act`, nor when a check fails", () => {
  const input = page('<input id="t" value="old">');
  const seen = events(input);
  assert.equal(ckHand(input, OP_FILL, "new", false), undefined);
  input.readOnly = true;
  assert.equal(ckHand(input, OP_FILL, "new", true), codes.ELEMENT_NOT_EDITABLE);
  assert.equal(input.value, "old");
  assert.deepEqual(seen, []);
});

test("click: the element's click()", () => {
  const button = page('<button id="t">b</button>');
  const seen = events(button);
  assert.equal(ckHand(button, OP_CLICK, undefined, true), undefined);
  assert.deepEqual(seen, ["click^c"]);
});

test("fill: the native value setter, past the element's own, then input and change", () => {
  for (const html of ['<input id="t">', '<textarea id="t"></textarea>']) {
    const field = page(html);
    let ownSetter = 0;
    // A framework's setter on the element itself (React's value tracker is one) is passed by.
    const proto = Object.getPrototypeOf(field);
    const native = Object.getOwnPropertyDescriptor(proto, "value");
    Object.defineProperty(field, "value", { configurable: true, get() { return native.get.call(this); }, set(v) { ownSetter++; native.set.call(this, v); } });
    const seen = events(field);
    assert.equal(ckHand(field, OP_FILL, "typed", true), "typed");
    assert.equal(ownSetter, 0, html);
    assert.equal(field.value, "typed");
    assert.deepEqual(seen, ["input^c", "change^c"], html);
  }
});

test("select: the native selectedIndex setter, then input and change; the answer is the new value", () => {
  const select = page('<select id="t"><option value="a">A</option><option value="b">B</option></select>');
  const seen = events(select);
  assert.equal(ckHand(select, OP_SELECT, "B", true), "b");
  assert.equal(select.selectedIndex, 1);
  assert.deepEqual(seen, ["input^c", "change^c"]);
});
