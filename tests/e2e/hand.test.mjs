// Hand mode and element actions against real input (SPEC §5): arming needs a trusted gesture,
// the badge's Stop and a hidden tab disarm, element actions never touch the page while disarmed
// or on an unavailable element, and fill/select reach a React-controlled form.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, onPart, clickPart, partCenter, waitCard, waitArmed, waitFor, click, sleep, TEST_TIMEOUT, confirmCard } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/**
 * A page with `window.ck`, records in `window.records`, `handmode` events in `window.hand`,
 * clicks on `#outside` counted in `window.clicks`, and `window.call(name, args)` keeping each
 * outcome in `window.outcomes[key]`.
 */
async function page(options = {}) {
  const p = await openFixture(env);
  await p.evaluate((options) => {
    const { Coworkkit } = window.coworkkit;
    window.records = [];
    window.hand = [];
    window.clicks = 0;
    window.outcomes = {};
    window.ck = new Coworkkit({ armDelayMs: 200, onActionRecord: (r) => window.records.push(r), ...options });
    window.ck.on("handmode", (armed) => window.hand.push(armed));
    document.querySelector("#outside").addEventListener("click", () => { window.clicks += 1; });
    window.call = (name, args = {}) => {
      const key = `${name}#${Object.keys(window.outcomes).length}`;
      window.outcomes[key] = null;
      window.ck.invoke({ name, args }).then((o) => { window.outcomes[key] = o; });
      return key;
    };
    // A page button whose trusted click arms Hand mode through the public API.
    const arm = document.createElement("button");
    arm.id = "arm";
    arm.textContent = "Let the agent help";
    arm.addEventListener("click", () => {
      try { window.ck.armHandMode(); window.armError = null; } catch (e) { window.armError = e.code; }
    });
    document.body.append(arm);
  }, options);
  return p;
}

async function waitOutcome(p, key, timeout = 5000) {
  const until = Date.now() + timeout;
  while (Date.now() < until) {
    const o = await p.evaluate((key) => window.outcomes[key], key);
    if (o) return o;
    await sleep(20);
  }
  throw new Error(`no outcome for ${key}`);
}
const invoke = async (p, name, args = {}) => waitOutcome(p, await p.evaluate(([n, a]) => window.call(n, a), [name, args]));
const handMode = (p) => p.evaluate(() => window.ck.handMode);
async function armByClick(p) {
  await click(p, "#arm");
  assert.equal(await p.evaluate(() => window.armError), null);
  assert.equal(await handMode(p), true);
}

/**
 * Evaluates in the page without a user gesture: Playwright's and puppeteer's own evaluate count
 * as one, so the Chromium driver goes through CDP with `userGesture: false` and the Firefox
 * driver through BiDi with `userActivation: false`; in WebKit an evaluate is never a gesture.
 */
const evalNoGesture = (p, expression) => p.evaluateNoGesture(expression);
/** Waits until the transient activation of earlier gestures (about 5 s) has lapsed. */
async function waitNoActivation(p) {
  const until = Date.now() + 10000;
  while (Date.now() < until) {
    if (!(await evalNoGesture(p, "navigator.userActivation.isActive"))) return;
    await sleep(200);
  }
  throw new Error("user activation never lapsed");
}

test("a trusted click arms Hand mode: on the SDK's switch and through armHandMode() in a page handler", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  assert.equal(await handMode(p), false, "off by default");
  await p.evaluate(() => { window.sw = window.ck.mountHandModeSwitch(); });
  assert.equal(await onPart(p, "switch", function () { return [this.tagName, this.getAttribute("role"), this.getAttribute("aria-checked")]; }).then((a) => a.join()), "BUTTON,switch,false");
  assert.equal(await partCenter(p, "badge"), null, "no badge while disarmed");

  await clickPart(p, "switch");
  await waitFor(p, () => window.ck.handMode === true);
  assert.equal(await onPart(p, "switch", function () { return this.getAttribute("aria-checked"); }), "true");
  assert.notEqual(await partCenter(p, "badge"), null, "the badge shows while armed");
  assert.equal(await onPart(p, "badge", function () { return this.textContent; }), "The agent may use this pageStop");
  const badge = await onPart(p, "badge", function () {
    const s = getComputedStyle(this);
    return { position: s.position, z: s.zIndex, host: this.getRootNode().host.getAttribute("data-coworkkit") };
  });
  assert.deepEqual(badge, { position: "fixed", z: "2147483647", host: "hand" });

  await clickPart(p, "switch");
  await waitFor(p, () => window.ck.handMode === false);
  assert.equal(await onPart(p, "switch", function () { return this.getAttribute("aria-checked"); }), "false");
  assert.equal(await partCenter(p, "badge"), null);

  await armByClick(p);
  assert.equal(await onPart(p, "switch", function () { return this.getAttribute("aria-checked"); }), "true", "the switch follows the API");
  await p.evaluate(() => window.ck.disarmHandMode());
  assert.deepEqual(await p.evaluate(() => window.hand), [true, false, true, false]);

  await p.evaluate(() => window.sw.dispose());
  assert.equal(await partCenter(p, "switch"), null, "dispose() removes the switch");
  assert.deepEqual(p.problems, []);
});

test("without user activation armHandMode() throws needs_user_activation, and an untrusted switch click does nothing", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => { window.ck.mountHandModeSwitch(); });
  await waitNoActivation(p);
  const thrown = await evalNoGesture(p, `(() => { try { window.ck.armHandMode(); return "armed"; } catch (e) { return [e instanceof Error, e.code, e.message]; } })()`);
  assert.equal(thrown[0], true);
  assert.equal(thrown[1], "needs_user_activation");
  assert.match(thrown[2], /gesture|activation/i);
  // A script's click() on the switch is untrusted and carries no activation.
  await onPart(p, "switch", function () { this.click(); });
  await sleep(100);
  // From a timer, long after the last gesture, it throws too.
  const fromTimer = await evalNoGesture(p, `new Promise((resolve) => setTimeout(() => {
    try { window.ck.armHandMode(); resolve("armed"); } catch (e) { resolve(e.code); } }, 50))`);
  assert.equal(fromTimer, "needs_user_activation");
  assert.equal(await evalNoGesture(p, "window.ck.handMode"), false);
  assert.deepEqual(await evalNoGesture(p, "window.hand"), []);
  assert.deepEqual(p.problems, []);
});

test("an element action while disarmed leaves the page untouched; armed, it acts", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => {
    window.ck.defineAction({ name: "pressOutside", description: "Press the page button.", element: "#outside", operation: "click" });
    window.ck.defineAction({ name: "typeName", description: "Type into the field.", element: document.querySelector("#field"), operation: "fill" });
    document.querySelector("#field").addEventListener("input", () => { window.inputs = (window.inputs ?? 0) + 1; });
  });
  const clicked = await invoke(p, "pressOutside");
  assert.equal(clicked.gate, "needs_hand_mode");
  assert.equal(clicked.ok, false);
  assert.equal(clicked.error.code, "hand_mode_off");
  assert.equal((await invoke(p, "typeName", { value: "hello" })).gate, "needs_hand_mode");
  assert.equal(await p.evaluate(() => window.clicks), 0);
  assert.equal(await p.evaluate(() => document.querySelector("#field").value), "");
  assert.equal(await p.evaluate(() => window.inputs ?? 0), 0);
  const records = await p.evaluate(() => window.records);
  assert.deepEqual(records.map((r) => [r.gate, r.outcome.status, r.reason]), [
    ["needs_hand_mode", "not_run", "hand_mode_off"], ["needs_hand_mode", "not_run", "hand_mode_off"],
  ]);

  await armByClick(p);
  assert.equal((await invoke(p, "pressOutside")).gate, "fired");
  assert.equal(await p.evaluate(() => window.clicks), 1);
  const filled = await invoke(p, "typeName", { value: "hello" });
  assert.equal(filled.ok, true);
  assert.equal(filled.result, "hello");
  assert.equal(await p.evaluate(() => document.querySelector("#field").value), "hello");
  assert.equal(await p.evaluate(() => window.inputs), 1);
  // fill without a string value is rejected by the default schema (or the host check).
  const bad = await invoke(p, "typeName", { value: 3 });
  assert.equal(bad.gate, "rejected");
  assert.equal(bad.error.code, "invalid_args");
  assert.deepEqual(p.problems, []);
});

test("the badge's Stop disarms on a trusted click", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => window.ck.defineAction({ name: "pressOutside", description: "Press.", element: "#outside", operation: "click" }));
  await armByClick(p);
  await clickPart(p, "stop");
  await waitFor(p, () => window.ck.handMode === false);
  assert.equal(await partCenter(p, "badge"), null, "the badge is gone");
  assert.deepEqual(await p.evaluate(() => window.hand), [true, false]);
  assert.equal((await invoke(p, "pressOutside")).gate, "needs_hand_mode");
  assert.equal(await p.evaluate(() => window.clicks), 0);
  assert.deepEqual(p.problems, []);
});

test("the tab becoming hidden disarms", { timeout: TEST_TIMEOUT }, async () => {
  // Headless Chromium keeps every page visible (a new tab, bringToFront, a minimized window
  // and Page.setWebLifecycleState all leave document.hidden false), so the test stands in for
  // the browser: it makes `document.hidden` report true and fires `visibilitychange`.
  const p = await page();
  await armByClick(p);
  await p.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  await sleep(50);
  assert.equal(await handMode(p), true, "a visibilitychange to visible keeps it armed");
  await p.evaluate(() => {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" });
    document.dispatchEvent(new Event("visibilitychange"));
  });
  await waitFor(p, () => window.ck.handMode === false);
  assert.deepEqual(await p.evaluate(() => window.hand), [true, false]);
  assert.equal(await partCenter(p, "badge"), null);
  // While hidden it cannot be armed, even inside a real gesture.
  await click(p, "#arm");
  assert.equal(await p.evaluate(() => window.armError), "needs_user_activation");
  assert.equal(await handMode(p), false);
  assert.deepEqual(p.problems, []);
});

test("a hard element action needs Hand mode and then Confirm on the card", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => window.ck.defineAction({
    name: "pressOutside", description: "Press the page button.", element: "#outside", operation: "click", control: "hard",
  }));
  const off = await invoke(p, "pressOutside");
  assert.equal(off.gate, "needs_hand_mode", "disarmed: no card at all");
  assert.equal(await p.evaluate(() => window.ck.pending().length), 0);

  await armByClick(p);
  const key = await p.evaluate(() => window.call("pressOutside"));
  await waitCard(p, (s) => s.open);
  await sleep(50);
  assert.equal(await p.evaluate(() => window.clicks), 0, "armed is not enough: the card waits");
  await confirmCard(p);
  const o = await waitOutcome(p, key);
  assert.equal(o.gate, "confirmed");
  assert.equal(o.ok, true);
  assert.equal(await p.evaluate(() => window.clicks), 1);

  // Disarmed while the card waits: Confirm settles needs_hand_mode and touches nothing.
  const key2 = await p.evaluate(() => window.call("pressOutside"));
  await waitCard(p, (s) => s.open);
  await p.evaluate(() => window.ck.disarmHandMode());
  await confirmCard(p);
  const o2 = await waitOutcome(p, key2);
  assert.equal(o2.gate, "needs_hand_mode");
  assert.equal(await p.evaluate(() => window.clicks), 1);
  assert.deepEqual(p.problems, []);
});

/** Loads React 19's CommonJS builds from /node_modules/ with a tiny `require`. */
async function mountReactForm(p) {
  await p.evaluate(async () => {
    const files = {
      react: "/node_modules/react/cjs/react.production.js",
      "react-dom": "/node_modules/react-dom/cjs/react-dom.production.js",
      "react-dom/client": "/node_modules/react-dom/cjs/react-dom-client.production.js",
      scheduler: "/node_modules/scheduler/cjs/scheduler.production.js",
    };
    const sources = {};
    for (const [name, url] of Object.entries(files)) sources[name] = await (await fetch(url)).text();
    const cache = {};
    const require = (name) => {
      if (cache[name]) return cache[name].exports;
      const module = { exports: {} };
      cache[name] = module;
      new Function("module", "exports", "require", "process", sources[name])(module, module.exports, require, { env: { NODE_ENV: "production" } });
      return module.exports;
    };
    const React = require("react");
    const { createRoot } = require("react-dom/client");
    const h = React.createElement;
    window.reactChanges = [];
    function Form() {
      const [name, setName] = React.useState("");
      const [color, setColor] = React.useState("red");
      return h("form", null,
        h("input", { id: "name", value: name, onChange: (e) => { window.reactChanges.push(["name", e.target.value]); setName(e.target.value); } }),
        h("textarea", { id: "notes", value: "", onChange: (e) => window.reactChanges.push(["notes", e.target.value]) }),
        h("select", { id: "color", value: color, onChange: (e) => { window.reactChanges.push(["color", e.target.value]); setColor(e.target.value); } },
          h("option", { value: "red" }, "Red"), h("option", { value: "grn" }, "Green"), h("option", { value: "blu", disabled: true }, "Blue")),
        h("output", { id: "echo" }, `${name}|${color}`));
    }
    const host = document.createElement("div");
    document.body.append(host);
    createRoot(host).render(h(Form));
  });
  await waitFor(p, () => document.querySelector("#echo")?.textContent === "|red");
  await p.evaluate(() => {
    window.native = [];
    for (const id of ["name", "color"]) {
      for (const kind of ["input", "change"]) {
        document.querySelector(`#${id}`).addEventListener(kind, (e) => window.native.push([id, kind, e.bubbles]));
      }
    }
  });
}

test("fill and select reach a React-controlled form: the native setter plus input and change events", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await mountReactForm(p);
  await p.evaluate(() => {
    window.ck.defineAction({ name: "setName", description: "Type the name.", element: "#name", operation: "fill" });
    window.ck.defineAction({ name: "pickColor", description: "Pick a colour.", element: "#color", operation: "select" });
  });
  await armByClick(p);
  const filled = await invoke(p, "setName", { value: "Ada" });
  assert.equal(filled.ok, true, JSON.stringify(filled));
  await waitFor(p, () => document.querySelector("#echo").textContent === "Ada|red");
  assert.equal(await p.evaluate(() => document.querySelector("#name").value), "Ada");

  const byLabel = await invoke(p, "pickColor", { value: "Green" });
  assert.equal(byLabel.ok, true, JSON.stringify(byLabel));
  assert.equal(byLabel.result, "grn");
  await waitFor(p, () => document.querySelector("#echo").textContent === "Ada|grn");
  const byValue = await invoke(p, "pickColor", { value: "red" });
  assert.equal(byValue.result, "red");
  await waitFor(p, () => document.querySelector("#echo").textContent === "Ada|red");

  assert.deepEqual(await p.evaluate(() => window.reactChanges), [["name", "Ada"], ["color", "grn"], ["color", "red"]]);
  assert.deepEqual(await p.evaluate(() => window.native), [
    ["name", "input", true], ["name", "change", true],
    ["color", "input", true], ["color", "change", true],
    ["color", "input", true], ["color", "change", true],
  ]);

  // A disabled option or an unknown one is not picked.
  for (const value of ["Blue", "blu", "purple"]) {
    const o = await invoke(p, "pickColor", { value });
    assert.equal(o.gate, "rejected", value);
    assert.equal(o.error.code, "invalid_args", value);
  }
  assert.equal(await p.evaluate(() => document.querySelector("#echo").textContent), "Ada|red");
  assert.deepEqual(p.problems, []);
});

test("missing, disabled, hidden, inert, zero-size and SDK-owned elements are element_unavailable and untouched", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => {
    const add = (html) => { const d = document.createElement("div"); d.innerHTML = html; document.body.append(d); };
    add(`<button id="dis" disabled>x</button><button id="ariadis" aria-disabled="true">x</button>
      <button id="hid" hidden>x</button><div style="display:none"><button id="none">x</button></div>
      <button id="invis" style="visibility:hidden">x</button><button id="zero" style="width:0;height:0;padding:0;border:0">x</button>
      <div inert><button id="inert">x</button></div><input id="ro" readonly><input id="box" type="checkbox">`);
    window.touched = [];
    for (const b of document.querySelectorAll("button, input")) b.addEventListener("click", () => window.touched.push(b.id));
    window.ck.mountHandModeSwitch();
    const cases = {
      missing: ["#nope", "click"], disabled: ["#dis", "click"], ariaDisabled: ["#ariadis", "click"],
      hiddenAttr: ["#hid", "click"], displayNone: ["#none", "click"], visibilityHidden: ["#invis", "click"],
      zeroSize: ["#zero", "click"], inert: ["#inert", "click"], sdkSwitch: ["[data-coworkkit=switch]", "click"],
      fillReadonly: ["#ro", "fill"], fillCheckbox: ["#box", "fill"], fillButton: ["#outside", "fill"], selectInput: ["#field", "select"],
    };
    for (const [name, [element, operation]] of Object.entries(cases)) {
      window.ck.defineAction({ name, description: name, element, operation });
    }
    window.cases = Object.keys(cases);
  });
  await armByClick(p);
  await p.evaluate(() => { window.touched = []; });
  for (const name of await p.evaluate(() => window.cases)) {
    const o = await invoke(p, name, { value: "x" });
    assert.equal(o.gate, "rejected", name);
    assert.equal(o.error.code, "element_unavailable", name);
    // A provider tool call is checked on arrival the same way.
    const tool = await p.evaluate((name) => window.ck.handleToolCall({ type: "tool_use", id: `t_${name}`, name, input: { value: "x" } }), name);
    assert.deepEqual(JSON.parse(tool.content).error, { code: o.error.code, message: o.error.message }, name);
  }
  assert.deepEqual(await p.evaluate(() => window.touched), []);
  assert.equal(await p.evaluate(() => document.querySelector("#ro").value), "");
  assert.equal(await handMode(p), true, "the switch was not toggled");
  const records = await p.evaluate(() => window.records);
  assert.ok(records.every((r) => r.gate === "rejected" && r.reason === "element_unavailable"));
  assert.deepEqual(p.problems, []);
});

test("element_unavailable and invalid_args messages, and which check wins", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => {
    const add = (html) => { const d = document.createElement("div"); d.innerHTML = html; document.body.append(d); return d; };
    add(`<button id="hidDis" hidden disabled>x</button><div inert><button id="inertHid" hidden>x</button></div>
      <input id="disIn" disabled><input id="ro" readonly><textarea id="area"></textarea>
      <svg id="svg" width="20" height="20"><rect width="20" height="20"/></svg>
      <select id="sel"><option value="x">first</option><option value="b" label="x">second</option>
        <option value="lim" label="  Lime ">ignored</option><option value="off" disabled>Off</option></select>
      <select id="hidSel" style="display:none"><option>a</option></select>`);
    // Across a shadow root: an inert host hides nothing from `closest`, so the walk must cross.
    const host = add("").appendChild(document.createElement("div"));
    host.setAttribute("inert", "");
    const inShadow = host.attachShadow({ mode: "open" }).appendChild(document.createElement("button"));
    inShadow.textContent = "x";
    const detached = document.createElement("button");
    window.ck.mountHandModeSwitch();
    const cases = {
      missing: ["#nope", "click"], detached: [detached, "click"], sdk: ["[data-coworkkit=switch]", "click"],
      inertOverHidden: ["#inertHid", "click"], hiddenOverDisabled: ["#hidDis", "click"], shadowInert: [inShadow, "click"],
      disabledOverEditable: ["#disIn", "fill"], readonly: ["#ro", "fill"], notHtml: ["#svg", "click"],
      notSelect: ["#area", "select"], hiddenSelect: ["#hidSel", "select"], sel: ["#sel", "select"], area: ["#area", "fill"],
    };
    for (const [name, [element, operation]] of Object.entries(cases)) {
      window.ck.defineAction({ name, description: name, element, operation });
    }
  });
  await armByClick(p);
  const expect = {
    missing: "the element matches nothing in the document", detached: "the element is not in the document",
    sdk: "the element belongs to the SDK itself", inertOverHidden: "the element is inert",
    hiddenOverDisabled: "the element is hidden", shadowInert: "the element is inert",
    disabledOverEditable: "the element is disabled", readonly: "the element is not an editable input or textarea",
    notHtml: "the element is not an HTML element", notSelect: "the element is not a <select>",
    hiddenSelect: "the element is hidden",
  };
  for (const [name, message] of Object.entries(expect)) {
    const o = await invoke(p, name, { value: "nothing-matches" });
    assert.deepEqual([o.gate, o.error.code, o.error.message], ["rejected", "element_unavailable", message], name);
  }
  // Options: by value first (even when another option's label is that value), then by trimmed label.
  assert.equal((await invoke(p, "sel", { value: "x" })).result, "x");
  assert.equal((await invoke(p, "sel", { value: "first" })).result, "x");
  assert.equal((await invoke(p, "sel", { value: " Lime  " })).result, "lim");
  // A `label` attribute is the label: the option's text is not.
  for (const value of ["off", "Off", "purple", "second", "ignored"]) {
    const o = await invoke(p, "sel", { value });
    assert.deepEqual([o.gate, o.error.code, o.error.message],
      ["rejected", "invalid_args", `args.value: no enabled option has the value or label ${value}`], value);
  }
  assert.equal(await p.evaluate(() => document.querySelector("#sel").value), "lim");
  const filled = await invoke(p, "area", { value: "two\nlines" });
  assert.deepEqual([filled.ok, filled.result], [true, "two\nlines"]);
  assert.equal(await p.evaluate(() => document.querySelector("#area").value), "two\nlines");
  assert.deepEqual(p.problems, []);
});

test("availability is checked again right before the operation: the run fails with element_unavailable", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(() => window.ck.defineAction({
    name: "pressOutside", description: "Press.", element: "#outside", operation: "click", control: "hard",
  }));
  await armByClick(p);
  const key = await p.evaluate(() => window.call("pressOutside"));
  await waitCard(p, (s) => s.open);
  await p.evaluate(() => { document.querySelector("#outside").disabled = true; });
  await confirmCard(p);
  const o = await waitOutcome(p, key);
  assert.equal(o.gate, "confirmed");
  assert.equal(o.ok, false);
  assert.equal(o.error.code, "element_unavailable");
  assert.equal(o.error.message, "the element is disabled");
  assert.equal(await p.evaluate(() => window.clicks), 0);
  const [record] = await p.evaluate(() => window.records);
  assert.deepEqual(record.outcome.status, "error");
  assert.equal(record.outcome.code, "element_unavailable");
  assert.deepEqual(p.problems, []);
});

test("element specs are validated, and dispose() removes the badge and switch and disarms", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const codes = await p.evaluate(() => {
    const attempt = (spec) => { try { window.ck.defineAction({ name: "a", description: "d", ...spec }); return "ok"; } catch (e) { return e.code; } };
    return [
      attempt({ element: "#outside", operation: "click", run: () => 1 }),
      attempt({ element: "#outside", operation: "hover" }),
      attempt({ element: "#outside" }),
      attempt({ element: "##bad((", operation: "click" }),
      attempt({ element: 42, operation: "click" }),
      attempt({ operation: "click" }),
    ];
  });
  assert.deepEqual(codes, Array(6).fill("invalid_spec"));
  const manifest = await p.evaluate(() => {
    window.ck.defineAction({ name: "typeIt", description: "Type.", element: "#field", operation: "fill" });
    return window.ck.tools?.("json");
  });
  if (manifest) assert.match(JSON.stringify(manifest), /"value"/, "the default schema reaches the manifest");

  await p.evaluate(() => { window.ck.mountHandModeSwitch(); });
  await armByClick(p);
  assert.notEqual(await partCenter(p, "badge"), null);
  await p.evaluate(() => window.ck.dispose());
  assert.equal(await handMode(p), false);
  assert.equal(await partCenter(p, "badge"), null);
  assert.equal(await partCenter(p, "switch"), null);
  assert.equal(await p.evaluate(() => document.querySelectorAll("[data-coworkkit]").length), 0);
  assert.deepEqual(await p.evaluate(() => window.hand), [true, false]);
  assert.equal(await p.evaluate(() => { try { window.ck.armHandMode(); return "armed"; } catch (e) { return e.code; } }), "disposed");
  assert.deepEqual(p.problems, []);
});

test("README: the Hand mode example runs as written", { timeout: TEST_TIMEOUT }, async () => {
  const { readFileSync } = await import("node:fs");
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const code = readme.match(/```js readme-hand\n([\s\S]*?)```/)?.[1];
  assert.ok(code, "README.md has a ```js readme-hand block");
  const p = await page();
  const logs = await p.evaluate(async (code) => {
    document.body.insertAdjacentHTML("beforeend", `<div id="toolbar"></div><button id="help">Help me</button>
      <button id="save">Save</button><input id="title"><select id="color"><option>red</option></select>`);
    const logs = [];
    const console = { log: (...a) => logs.push(a.join(" ")) };
    await new Function("ck", "console", `return (async () => {\n${code}\n})();`)(window.ck, console);
    return logs;
  }, code);
  assert.deepEqual(logs, ["needs_hand_mode"]);
  assert.equal(await p.evaluate(() => document.querySelector("#title").value), "");
  await click(p, "#help");
  assert.equal(await handMode(p), true);
  assert.equal(await p.evaluate(() => window.ck.invoke({ name: "setTitle", args: { value: "Q3 plan" } }).then((o) => o.gate)), "fired");
  assert.equal(await p.evaluate(() => document.querySelector("#title").value), "Q3 plan");
  await clickPart(p, "switch");
  await waitFor(p, () => window.ck.handMode === false);
  assert.deepEqual(p.problems, []);
});
