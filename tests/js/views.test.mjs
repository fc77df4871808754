// src/js/page.js in jsdom: the Watch panel (what a row says of a record, its assurance, the filter and the
// counts, the row cap, JSON Lines, the grants' list and Revoke) and the SDK's closed, styled
// hosts. Real clicks, trusted input, layout and adopted sheets are the e2e suite's
// (tests/e2e/watch.test.mjs, tests/e2e/styles.test.mjs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { ASSURANCE_MEANINGS, CkWatchPanel, ROWS_MAX, RECORD_GATES, ckShadowRoot, clockText, durationText, outcomeText, usesText } from "../../src/js/page.js";
import { ASSURANCES } from "../../src/js/codes.js";

const require = createRequire(new URL("../e2e/package.json", import.meta.url));
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><html><body></body></html>");
const { document } = window;

// Every root the SDK makes is closed; the test keeps a reference to each, as a page script cannot.
const roots = [];
const attach = window.Element.prototype.attachShadow;
window.Element.prototype.attachShadow = function (init) {
  const root = attach.call(this, init);
  roots.push(root);
  return root;
};

/** A record as objects.js's `ckRecord` makes it, with `fields` over the defaults. */
function record(n, fields = {}) {
  return Object.freeze({
    v: 1, id: `s.${n}`, sessionId: "s", callId: `call_${n}`, action: `action${n}`, control: "hard",
    controlSource: "declared", gate: "confirmed", outcome: { status: "ok", value: n }, args: { n },
    via: "webmcp", assurance: "input", startedAt: 1_700_000_000_000, settledAt: 1_700_000_000_250, ...fields,
  });
}

function mount() {
  const parent = document.createElement("div");
  document.body.append(parent);
  const revoked = [];
  const panel = new CkWatchPanel(parent, (id) => revoked.push(id));
  const root = roots.at(-1);
  const rows = () => [...root.querySelector("[part=rows]").children];
  const cell = (li, part) => li.querySelector(`[part~=${part}]`)?.textContent;
  const counts = () => Object.fromEntries([...root.querySelectorAll("[part=filter]")].map((b) => [b.dataset.gate, Number(b.querySelector("[part=count]").textContent)]));
  const filter = (gate) => root.querySelector(`[part=filter][data-gate=${gate}]`).dispatchEvent(new window.MouseEvent("click"));
  return { parent, panel, root, rows, cell, counts, filter, revoked };
}

test("a row shows time, action, control, gate, assurance, door, outcome, duration and the args", () => {
  const { panel, rows, cell } = mount();
  panel.push(record(7));
  const [li] = rows();
  assert.equal(li.dataset.gate, "confirmed");
  assert.equal(cell(li, "time"), clockText(1_700_000_000_250));
  assert.equal(cell(li, "action"), "action7");
  assert.equal(cell(li, "control"), "hard");
  assert.equal(li.querySelector("[part~=control]").dataset.control, "hard");
  assert.equal(cell(li, "gate"), "confirmed");
  const assurance = li.querySelector("[part=assurance]");
  assert.equal(assurance.dataset.assurance, "input");
  assert.equal(assurance.textContent, "assurance input", "read out with its name");
  assert.equal(assurance.getAttribute("title"), ASSURANCE_MEANINGS.input);
  assert.equal(assurance.previousElementSibling, li.querySelector("[part~=gate]"), "beside the gate");
  assert.equal(cell(li, "via"), "webmcp");
  assert.equal(li.querySelector("[part=via]").dataset.via, "webmcp");
  assert.equal(cell(li, "outcome"), "ok");
  assert.equal(cell(li, "duration"), "250 ms");
  assert.equal(li.querySelector("details pre").textContent, JSON.stringify({ n: 7 }, null, 2));
  assert.equal(li.querySelector("[part=note]"), null);
  assert.equal(li.querySelector("[part=grant]"), null);
});

test("the person's words and the grant show on their row, as text", () => {
  const { panel, rows, cell } = mount();
  panel.push(record(1, { gate: "cancelled", outcome: { status: "error", code: "declined", message: "no" }, note: "<b>not</b> today" }));
  panel.push(record(2, { gate: "fired", control: "soft", grant: "ckg_3" }));
  const [granted, declined] = rows();
  assert.equal(declined.querySelector("q[part=note]").textContent, "<b>not</b> today");
  assert.equal(declined.querySelector("b"), null);
  assert.equal(cell(declined, "outcome"), "error: declined");
  assert.equal(cell(granted, "grant"), "on grant ckg_3");
});

test("every assurance a record can carry is shown as its own word, with a meaning that says what it does not prove", () => {
  const { panel, rows } = mount();
  for (const [n, word] of ASSURANCES.entries()) panel.push(record(n, { assurance: word }));
  const shown = rows().reverse().map((li) => li.querySelector("[part=assurance]"));
  assert.deepEqual(shown.map((s) => s.dataset.assurance), [...ASSURANCES]);
  assert.deepEqual(shown.map((s) => s.lastChild.textContent), [...ASSURANCES], "the record's own word, visible");
  assert.deepEqual(Object.keys(ASSURANCE_MEANINGS), [...ASSURANCES], "a meaning for each, no more");
  assert.deepEqual(shown.map((s) => s.title), ASSURANCES.map((a) => ASSURANCE_MEANINGS[a]));
  // The two that are easiest to read as more than they are say so.
  assert.match(ASSURANCE_MEANINGS.agent, /agent's word/);
  assert.match(ASSURANCE_MEANINGS.input, /or an agent/);
});

test("the filter is by gate only: assurance does not change which rows pass", () => {
  const { panel, rows, filter, counts } = mount();
  panel.push(record(1, { gate: "confirmed", assurance: "agent" }));
  panel.push(record(2, { gate: "confirmed", assurance: "input" }));
  panel.push(record(3, { gate: "cancelled", assurance: "none" }));
  filter("confirmed");
  assert.deepEqual(rows().map((li) => li.hidden), [true, false, false]);
  assert.equal(counts().confirmed, 2);
});

test("outcome texts: ok, error, not run with or without a reason, and the passkey that confirmed", () => {
  assert.equal(outcomeText(record(1)), "ok");
  assert.equal(outcomeText(record(1, { outcome: { status: "error", code: "run_failed" } })), "error: run_failed");
  assert.equal(outcomeText(record(1, { outcome: { status: "not_run" }, reason: "cancelled_by_user" })), "not run: cancelled_by_user");
  assert.equal(outcomeText(record(1, { outcome: { status: "not_run" } })), "not run");
  assert.equal(outcomeText(record(1, { verification: { credentialId: "AbC-_9" } })), "ok · passkey AbC-_9");
});

test("durations read the way people say them", () => {
  const cases = [[0, "0 ms"], [0.4, "0 ms"], [12.6, "13 ms"], [999, "999 ms"], [1000, "1.0 s"], [3456, "3.4 s"],
    [59_999, "59.9 s"], [60_000, "1 min 0 s"], [125_000, "2 min 5 s"], [-5, "0 ms"], [NaN, "0 ms"], [Infinity, "0 ms"]];
  for (const [ms, text] of cases) assert.equal(durationText(ms), text, `durationText(${ms})`);
});

test("times are the page's local clock, zero-padded; a non-finite one reads as midnight", () => {
  const at = new Date(2026, 11, 3, 1, 2, 3, 4).getTime();
  assert.equal(clockText(at), "01:02:03.004");
  assert.equal(clockText(at, false), "01:02:03");
  assert.equal(clockText(new Date(2026, 0, 1, 23, 59, 59, 999).getTime()), "23:59:59.999");
  assert.equal(clockText(NaN), "00:00:00.000");
  assert.equal(clockText(undefined, false), "00:00:00");
});

test("rows are newest first; the filter shows one gate and All shows every row", () => {
  const { panel, rows, filter, root } = mount();
  const gates = ["fired", "rejected", "fired", "timeout"];
  gates.forEach((gate, n) => panel.push(record(n, { gate })));
  assert.deepEqual(rows().map((li) => li.querySelector("[part=action]").textContent), ["action3", "action2", "action1", "action0"]);
  filter("fired");
  assert.deepEqual(rows().map((li) => li.hidden), [true, false, true, false]);
  assert.equal(root.querySelector("[data-gate=fired][part=filter]").getAttribute("aria-pressed"), "true");
  assert.equal(root.querySelector("[data-gate=all]").getAttribute("aria-pressed"), "false");
  panel.push(record(4, { gate: "rejected" }));
  assert.equal(rows()[0].hidden, true, "a new row that does not pass the filter comes in hidden");
  filter("all");
  assert.ok(rows().every((li) => !li.hidden));
});

test("counts are per gate and All, and keep counting past the row cap", () => {
  const { panel, rows, counts } = mount();
  assert.deepEqual(Object.keys(counts()), ["all", ...RECORD_GATES]);
  for (let n = 0; n < ROWS_MAX + 10; n++) panel.push(record(n, { gate: n % 2 ? "fired" : "needs_hand_mode" }));
  assert.equal(rows().length, ROWS_MAX);
  assert.deepEqual(counts(), { all: ROWS_MAX + 10, fired: 255, confirmed: 0, needs_hand_mode: 255, cancelled: 0, timeout: 0, rejected: 0 });
  // The oldest rows left: the newest is first, the 11th record is the oldest kept.
  assert.equal(rows()[0].querySelector("[part=action]").textContent, `action${ROWS_MAX + 9}`);
  assert.equal(rows().at(-1).querySelector("[part=action]").textContent, "action10");
});

test("JSON Lines: the kept records that pass the filter, oldest first, null where one cannot be written", () => {
  const { panel, filter } = mount();
  panel.push(record(1, { gate: "fired" }));
  panel.push(record(2, { gate: "rejected" }));
  panel.push(record(3, { gate: "fired", outcome: { status: "ok", value: 10n } }));
  const lines = panel.jsonLines().split("\n");
  assert.equal(lines.length, 4);
  assert.deepEqual(JSON.parse(lines[0]), JSON.parse(JSON.stringify(record(1, { gate: "fired" }))));
  assert.equal(JSON.parse(lines[1]).id, "s.2");
  assert.equal(lines[2], "null", "a BigInt result cannot be JSON");
  assert.equal(lines[3], "");
  filter("rejected");
  assert.deepEqual(panel.jsonLines(), JSON.stringify(record(2, { gate: "rejected" })) + "\n");
});

test("the grants' list: each grant's words, Revoke hands its id over, and the section hides when none is live", () => {
  const { panel, root, revoked } = mount();
  const section = root.querySelector("[part=grants]");
  assert.equal(section.hidden, true);
  const expiresAt = new Date(2026, 11, 3, 14, 32, 10).getTime();
  panel.showGrants([
    { id: "ckg_1", action: "archiveThread", createdAt: 0, expiresAt, uses: 0 },
    { id: "ckg_2", action: "archiveThread", createdAt: 0, expiresAt, uses: 1, maxUses: 5, match: { threadId: "t<1>" } },
  ]);
  assert.equal(section.hidden, false);
  const rows = [...root.querySelectorAll("[part=grant-row]")];
  assert.deepEqual(rows.map((li) => li.dataset.grant), ["ckg_1", "ckg_2"]);
  const text = (li, part) => li.querySelector(`[part=${part}]`).textContent;
  assert.equal(text(rows[0], "grant-match"), "any arguments");
  assert.equal(text(rows[0], "grant-uses"), "not used yet");
  assert.equal(text(rows[0], "grant-until"), "until 14:32:10");
  assert.equal(text(rows[1], "grant-match"), '{"threadId":"t<1>"}');
  assert.equal(text(rows[1], "grant-uses"), "1 of 5 uses");
  const revoke = rows[1].querySelector("[part=revoke]");
  assert.equal(revoke.getAttribute("aria-label"), "Revoke the grant of archiveThread");
  revoke.dispatchEvent(new window.MouseEvent("click", { bubbles: true }));
  assert.deepEqual(revoked, ["ckg_2"]);
  panel.showGrants([]);
  assert.equal(section.hidden, true);
  assert.equal(root.querySelectorAll("[part=grant-row]").length, 0);
});

test("uses: how often a grant was used, or of how many", () => {
  const g = (uses, maxUses) => ({ id: "ckg_1", action: "a", expiresAt: 0, uses, maxUses });
  assert.equal(usesText(g(0)), "not used yet");
  assert.equal(usesText(g(1)), "used once");
  assert.equal(usesText(g(3)), "used 3 times");
  assert.equal(usesText(g(0, 5)), "0 of 5 uses");
});

test("remove takes the panel out of the page and forgets its rows", () => {
  const { parent, panel } = mount();
  panel.push(record(1));
  assert.equal(parent.children.length, 1);
  panel.remove();
  assert.equal(parent.children.length, 0);
  assert.equal(panel.jsonLines(), "");
  panel.remove();
});

test("a host is the SDK's: tagged with its kind, closed, styled, appended last", () => {
  const parent = document.createElement("div");
  parent.append(document.createElement("p"));
  const root = ckShadowRoot(parent, "coworkkit-card", "card");
  const host = parent.lastElementChild;
  assert.equal(root.host, host);
  assert.equal(host.localName, "coworkkit-card");
  assert.equal(host.getAttribute("data-coworkkit"), "card");
  assert.equal(root.mode, "closed");
  assert.equal(host.shadowRoot, null);
  // jsdom cannot adopt a constructed sheet, so this is the `<style>` fallback; a browser adopts
  // (tests/e2e/styles.test.mjs).
  const style = root.querySelector("style");
  assert.match(style.textContent, /^:host\{all:initial\}dialog\{/);
  const other = ckShadowRoot(parent, "coworkkit-watch", "watch");
  assert.match(other.querySelector("style").textContent, /max-height:var\(--ck-watch-height,24rem\)/);
  assert.throws(() => ckShadowRoot(document, "coworkkit-card", "card"), /in no document/);
});
