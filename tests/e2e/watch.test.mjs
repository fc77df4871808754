// The Watch panel (SPEC §6) in a real page: rows appear live for every gate, the gate filter
// and counts work under real clicks, the row cap holds, and "Copy JSON Lines" yields exactly
// the records `onActionRecord` received.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, onPart, clickPart, waitCard, sleep, ENGINE, TEST_TIMEOUT } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

async function page(options = {}) {
  const p = await openFixture(env);
  await p.evaluate((options) => {
    const { Coworkkit } = window.coworkkit;
    window.records = [];
    window.ck = new Coworkkit({ armDelayMs: 100, onActionRecord: (r) => window.records.push(r), ...options });
    window.panel = window.ck.mountWatchPanel();
    window.ck.defineAction({ name: "readNote", description: "Read.", run: (a) => ({ text: `note ${a.n ?? 0}` }) });
    window.ck.defineAction({ name: "archiveNote", description: "Archive.", control: "soft", run: () => "archived" });
    window.ck.defineAction({ name: "purgeAll", description: "Purge.", control: "hard", run: () => "purged" });
    window.ck.defineAction({ name: "pressOutside", description: "Press.", element: "#outside", operation: "click" });
  }, options);
  return p;
}

/** The panel's rows, newest first, read inside its closed shadow root. */
const rows = (p) => onPart(p, "rows", function () {
  return [...this.children].map((li) => ({
    gate: li.dataset.gate,
    hidden: li.hidden,
    visible: li.getClientRects().length > 0,
    time: li.querySelector("[part=time]").textContent,
    action: li.querySelector("[part=action]").textContent,
    control: li.querySelector("[part~=control]").textContent,
    badge: li.querySelector("[part~=gate]").textContent,
    assurance: li.querySelector("[part=assurance]").dataset.assurance,
    said: li.querySelector("[part=assurance]").textContent,
    outcome: li.querySelector("[part=outcome]").textContent,
    duration: li.querySelector("[part=duration]").textContent,
    args: li.querySelector("details pre").textContent,
  }));
});
/** `{ all: n, fired: n, ... }` and which filter is pressed. */
const filters = (p) => onPart(p, "filters", function () {
  const counts = {};
  let pressed = null;
  for (const b of this.querySelectorAll("[part=filter]")) {
    counts[b.dataset.gate] = Number(b.querySelector("[part=count]").textContent);
    if (b.getAttribute("aria-pressed") === "true") pressed = b.dataset.gate;
  }
  return { counts, pressed };
});
async function clickFilter(p, gate) {
  const at = await onPart(p, "filters", function (gate) {
    const r = this.querySelector(`[data-gate=${gate}]`).getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  }, gate);
  await p.mouse.click(at.x, at.y);
}
const until = async (fn, timeout = 5000) => {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error("condition never held");
    await sleep(25);
  }
};

test("rows appear live for every gate, newest first, with time, action, control, gate, assurance, outcome, duration and args", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page({ confirmTimeoutMs: 1500 });
  assert.deepEqual(await rows(p), []);
  await p.evaluate(() => window.ck.invoke({ name: "readNote", args: { n: 1 } }));
  let shown = await rows(p);
  assert.equal(shown.length, 1, "the row is there as soon as the call settles");
  assert.deepEqual(
    { ...shown[0], time: undefined, duration: undefined },
    { gate: "fired", hidden: false, visible: true, time: undefined, action: "readNote", control: "open", badge: "fired", assurance: "none", said: "assurance none", outcome: "ok", duration: undefined, args: '{\n  "n": 1\n}' },
  );
  assert.match(shown[0].time, /^\d\d:\d\d:\d\d\.\d{3}$/);
  assert.match(shown[0].duration, /^\d+ ms$/);

  await p.evaluate(async () => {
    const ck = window.ck;
    const first = await ck.invoke({ name: "archiveNote", args: {} });
    await ck.invoke({ name: "archiveNote", args: {}, confirmToken: first.confirmToken }); // confirmed
    const second = await ck.invoke({ name: "archiveNote", args: { k: 2 } });
    await ck.invoke({ name: "archiveNote", args: { k: 2 }, confirmToken: second.confirmToken, decline: true }); // cancelled
    await ck.invoke({ name: "pressOutside" }); // needs_hand_mode
    await ck.invoke({ name: "nope" }); // rejected
    window.hardKey = ck.invoke({ name: "purgeAll" }); // its card is left to expire: timeout
  });
  await waitCard(p, (s) => s.open);
  assert.equal((await rows(p)).length, 5, "a waiting card has no row yet");
  await until(async () => (await rows(p)).length === 6);
  shown = await rows(p);
  assert.deepEqual(shown.map((r) => [r.action, r.badge, r.said]), [
    ["purgeAll", "timeout", "assurance none"], ["nope", "rejected", "assurance none"], ["pressOutside", "needs_hand_mode", "assurance none"],
    ["archiveNote", "cancelled", "assurance none"], ["archiveNote", "confirmed", "assurance agent"], ["readNote", "fired", "assurance none"],
  ]);
  assert.ok(shown.every((r) => r.gate === r.badge && r.visible));
  const byGate = Object.fromEntries(shown.map((r) => [r.gate, r]));
  assert.equal(byGate.rejected.outcome, "not run: unknown_action");
  assert.equal(byGate.needs_hand_mode.outcome, "not run: hand_mode_off");
  assert.equal(byGate.cancelled.outcome, "not run: declined");
  assert.equal(byGate.timeout.outcome, "not run: expired");
  assert.match(byGate.timeout.duration, /^1\.\d s$/);
  assert.equal(shown[0].control, "hard");
  assert.equal(shown[3].control, "soft");
  const records = await p.evaluate(() => window.records);
  assert.deepEqual(shown.map((r) => [r.action, r.gate, r.assurance]), records.slice().reverse().map((r) => [r.action, r.gate, r.assurance]), "newest first, one row per record, its assurance the record's");
  assert.deepEqual((await filters(p)).counts, { all: 6, fired: 1, confirmed: 1, needs_hand_mode: 1, cancelled: 1, timeout: 1, rejected: 1 });
  assert.deepEqual(p.problems, []);
});

test("filtering by gate (real clicks) shows one gate, counts stay per gate, and new rows respect the filter", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(async () => {
    for (let i = 0; i < 3; i++) await window.ck.invoke({ name: "readNote", args: { n: i } });
    for (let i = 0; i < 2; i++) await window.ck.invoke({ name: "nope" });
    await window.ck.invoke({ name: "pressOutside" });
  });
  assert.deepEqual(await filters(p), { counts: { all: 6, fired: 3, confirmed: 0, needs_hand_mode: 1, cancelled: 0, timeout: 0, rejected: 2 }, pressed: "all" });
  await clickFilter(p, "rejected");
  assert.equal((await filters(p)).pressed, "rejected");
  let shown = await rows(p);
  assert.deepEqual(shown.filter((r) => r.visible).map((r) => r.gate), ["rejected", "rejected"]);
  assert.ok(shown.filter((r) => r.gate !== "rejected").every((r) => r.hidden && !r.visible));

  await p.evaluate(() => window.ck.invoke({ name: "readNote" }));
  await p.evaluate(() => window.ck.invoke({ name: "nope2" }));
  shown = await rows(p);
  assert.deepEqual(shown.filter((r) => r.visible).map((r) => r.action), ["nope2", "nope", "nope"]);
  assert.equal(shown[1].action, "readNote");
  assert.equal(shown[1].visible, false, "a new row of another gate arrives hidden");
  // JSON Lines follow the filter.
  const lines = (await p.evaluate(() => window.panel.jsonLines())).trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((r) => r.action), ["nope", "nope", "nope2"]);

  await clickFilter(p, "all");
  shown = await rows(p);
  assert.equal(shown.filter((r) => r.visible).length, 8);
  assert.deepEqual((await filters(p)).counts.all, 8);
  assert.deepEqual(p.problems, []);
});

test("the panel keeps the last 500 rows after 2,000 records; counts keep every record", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.evaluate(async () => {
    for (let i = 0; i < 2000; i++) await window.ck.invoke({ name: "readNote", args: { n: i } });
  });
  const shown = await rows(p);
  assert.equal(shown.length, 500);
  assert.equal(shown[0].args, '{\n  "n": 1999\n}');
  assert.equal(shown[499].args, '{\n  "n": 1500\n}');
  assert.equal((await filters(p)).counts.fired, 2000);
  const lines = (await p.evaluate(() => window.panel.jsonLines())).split("\n");
  assert.equal(lines.length, 501, "500 lines, each ending in a newline");
  assert.equal(lines[500], "");
  assert.deepEqual(p.problems, []);
});

test("Copy JSON Lines writes valid JSON Lines equal to the records delivered to onActionRecord", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  await p.allowClipboard(env.url);
  await p.evaluate(async () => {
    // What the SDK hands the browser's clipboard, seen on its way (the text still goes there).
    window.written = [];
    const write = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = (text) => { window.written.push(text); return write(text).then(() => { window.written.push("written"); }); };
    await window.ck.invoke({ name: "readNote", args: { n: 1, tricky: "line\nbreak \u2028 \"quoted\" </script>" } });
    await window.ck.invoke({ name: "nope", args: { deep: { a: [1, 2, { b: null }] } } });
    await window.ck.invoke({ name: "pressOutside" });
    const t = await window.ck.invoke({ name: "archiveNote", args: { x: 1 } });
    await window.ck.invoke({ name: "archiveNote", args: { x: 1 }, confirmToken: t.confirmToken });
  });
  await clickPart(p, "copy");
  const [copied, written] = await until(() => p.evaluate(() => (window.written.length === 2 ? window.written : null)));
  assert.equal(written, "written", "the browser took the text");
  const fromHandle = await p.evaluate(() => window.panel.jsonLines());
  assert.equal(copied, fromHandle, "the clipboard and jsonLines() agree");
  if (ENGINE !== "webkit") {
    // Read back from the real clipboard. (WebKit offers automation no clipboard-read permission:
    // its readText() waits for a person to pick "Paste" in a callout.)
    const read = await until(() => p.evaluate(async () => {
      const text = await navigator.clipboard.readText().catch(() => "");
      return text.length > 0 ? text : null;
    }));
    assert.equal(read, copied, "the clipboard holds what was written");
  }
  assert.ok(copied.endsWith("\n"));
  const lines = copied.slice(0, -1).split("\n");
  assert.equal(lines.length, 4, "one per settled call (needs_confirmation is not recorded)");
  const parsed = lines.map((line) => JSON.parse(line));
  const delivered = await p.evaluate(() => JSON.parse(JSON.stringify(window.records)));
  assert.deepEqual(parsed, delivered);
  assert.deepEqual(parsed.map((r) => [r.gate, r.assurance]), [["fired", "none"], ["rejected", "none"], ["needs_hand_mode", "none"], ["confirmed", "agent"]]);
  assert.deepEqual(p.problems, []);
});

test("a result whose toJSON calls the SDK while JSON Lines print: the panel takes the new row, nothing breaks", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const out = await p.evaluate(async () => {
    // App code inside JSON.stringify: a run's result whose toJSON invokes an action, which
    // records, which feeds the very panel whose lines are printing.
    let reentered = 0;
    window.ck.defineAction({
      name: "readTricky", description: "Read.",
      run: () => ({ toJSON() { reentered += 1; window.ck.invoke({ name: "readNote", args: { n: 9 } }); return { tricky: true }; } }),
    });
    await window.ck.invoke({ name: "readTricky" });
    const first = window.panel.jsonLines();
    await new Promise((r) => setTimeout(r, 0));
    const after = await window.ck.invoke({ name: "readNote", args: { n: 2 } });
    return { first, reentered, gate: after.gate, second: window.panel.jsonLines(), records: window.records.length };
  });
  assert.equal(out.reentered, 1);
  assert.deepEqual(out.first.trim().split("\n").map((l) => JSON.parse(l).outcome), [{ status: "ok", value: { tricky: true } }]);
  assert.equal(out.gate, "fired", "the SDK still answers");
  // The second print re-enters once more: its call's record comes after the three it prints.
  assert.equal(out.second.trim().split("\n").length, 3);
  assert.equal(out.records, 4, "the calls made from toJSON were recorded too");
  assert.equal((await rows(p)).length, 4);
  assert.deepEqual(p.problems, []);
});

test("dispose() of the handle or the instance removes the panel; a disposed panel stops receiving", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const second = await p.evaluate(() => {
    window.box = document.createElement("section");
    document.body.append(window.box);
    window.panel2 = window.ck.mountWatchPanel(window.box);
    return window.box.querySelectorAll("coworkkit-watch[data-coworkkit=watch]").length;
  });
  assert.equal(second, 1, "mounted into the given element");
  await p.evaluate(() => window.ck.invoke({ name: "readNote" }));
  await p.evaluate(() => { window.panel2.dispose(); window.panel2.dispose(); });
  assert.equal(await p.evaluate(() => window.box.children.length), 0);
  assert.equal(await p.evaluate(() => window.panel2.jsonLines()), "");
  await p.evaluate(() => window.ck.invoke({ name: "readNote" }));
  assert.equal((await rows(p)).length, 2, "the first panel still receives");
  await p.evaluate(() => window.ck.dispose());
  assert.equal(await p.evaluate(() => document.querySelectorAll("[data-coworkkit]").length), 0);
  assert.equal(await p.evaluate(() => { try { window.ck.mountWatchPanel(); return "ok"; } catch (e) { return e.code; } }), "disposed");
  assert.deepEqual(p.problems, []);
});
