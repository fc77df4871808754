// coworkkit/testing (SPEC §15), as the package ships it (pkg/testing.js), in every engine: in
// Chromium handed Playwright's own Page (the DevTools protocol path an app's team uses), in
// Firefox and WebKit the project's driver page (BiDi's includeShadowTree, the WebKit page tap).
// It reads, confirms and cancels a real card with trusted input; nothing of it confirms a card
// from inside the page, and a page script pressing Confirm does nothing.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, onPart, waitFor, sleep, testingPage, TEST_TIMEOUT, ENGINE } from "./harness.mjs";
import { readCard, confirmCard, cancelCard } from "../../pkg/testing.js";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/** A page with `window.ck` (arm delay 300 ms), hard actions `a` and `b`, `call(name)` → key. */
async function page({ openShadowRoots = false } = {}) {
  const p = await openFixture(env, undefined, openShadowRoots);
  await p.evaluate(() => {
    const { Coworkkit } = window.coworkkit;
    window.outcomes = {};
    window.records = [];
    window.ck = new Coworkkit({ armDelayMs: 300, onActionRecord: (r) => window.records.push(r) });
    for (const name of ["deleteA", "deleteB"]) {
      window.ck.defineAction({
        name, description: `The ${name} action.`, control: "hard",
        confirmationSummary: () => `Really ${name}?`,
        run: () => ({ done: name }),
      });
    }
    window.call = (name) => {
      window.outcomes[name] = null;
      window.ck.invoke({ name, args: {} }).then((o) => { window.outcomes[name] = o; });
      return name;
    };
  });
  return p;
}

const outcome = (p, key) => waitFor(p, (key) => window.outcomes[key], key);

test("readCard: null with no card; the open card's title, summary, position, buttons and arming", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const t = testingPage(p);
  assert.equal(await readCard(t), null, "no card yet");
  await p.evaluate(() => { window.call("deleteA"); window.call("deleteB"); });
  await waitFor(p, () => window.ck.pending().length === 2);
  let card = await readCard(t);
  for (const until = Date.now() + 5000; !card?.armed && Date.now() < until; await sleep(25)) card = await readCard(t);
  assert.ok(card, "the card is open");
  assert.equal(card.title, "Delete a");
  assert.equal(card.summary, "Really deleteA?");
  assert.equal(card.position, "1 of 2");
  assert.deepEqual(card.buttons.map((b) => [b.part, b.label, b.disabled]),
    [["cancel-all", "Cancel all 2", false], ["cancel", "Cancel", false], ["confirm", "Confirm", false]]);
  assert.equal(card.armed, true, "Confirm arms after armDelayMs");
  assert.equal(card.focused, "cancel");
  assert.equal(card.notice, null);
  assert.equal(card.reason, "");
  assert.match(card.countdown, /^Expires in \d:\d\d$/);
});

test("confirmCard waits for the arm delay and confirms with the trusted mouse; twice in a row, each a click of its own", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const t = testingPage(p);
  await p.evaluate(() => { window.call("deleteA"); window.call("deleteB"); });
  const started = Date.now();
  const first = await confirmCard(t);
  assert.ok(Date.now() - started >= 300, "not before the arm delay");
  assert.equal(first.title, "Delete a");
  assert.equal(first.armed, true);
  // The next card is at the same place: its Confirm re-arms, and the second click is kept apart
  // from the first (a double click never confirms).
  const second = await confirmCard(t);
  assert.equal(second.title, "Delete b");
  for (const name of ["deleteA", "deleteB"]) {
    const o = await outcome(p, name);
    assert.equal(o.gate, "confirmed", name);
    assert.deepEqual(o.result, { done: name });
  }
  assert.equal(await readCard(t), null, "no card left");
});

test("cancelCard types the reason with the trusted keyboard and presses Cancel", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const t = testingPage(p);
  await p.evaluate(() => window.call("deleteA"));
  const reason = `Not that one: it holds the "client" backups`;
  const shown = await cancelCard(t, { reason });
  assert.equal(shown.reason, reason, "the field held the typed reason when Cancel was pressed");
  const o = await outcome(p, "deleteA");
  assert.equal(o.gate, "cancelled");
  assert.equal(o.error.code, "declined");
  assert.equal(o.error.message, `the user cancelled this call, saying: "${reason}"`);
  const [record] = await p.evaluate(() => window.records);
  assert.equal(record.note, reason);
  // Without a reason: Cancel alone.
  await p.evaluate(() => window.call("deleteB"));
  await cancelCard(t);
  const o2 = await outcome(p, "deleteB");
  assert.equal(o2.gate, "cancelled");
  assert.equal(o2.error.code, "cancelled_by_user");
});

test("a page script pressing Confirm does nothing, even with the shadow root open; confirmCard then does", { timeout: TEST_TIMEOUT }, async () => {
  // The tap's `open` mode attaches the SDK's shadow roots open (the axe tests use it): here the
  // page's own script can reach Confirm, and the card still counts only trusted input.
  const p = await page({ openShadowRoots: true });
  const t = testingPage(p);
  await p.evaluate(() => window.call("deleteA"));
  let card = null;
  for (const until = Date.now() + 5000; !card?.armed && Date.now() < until; await sleep(25)) card = await readCard(t);
  assert.equal(card?.armed, true);
  const reached = await p.evaluate(() => {
    const root = document.querySelector('[data-coworkkit="card"]').shadowRoot;
    const confirm = root.querySelector('[part~="confirm"]');
    const r = confirm.getBoundingClientRect();
    const at = { clientX: r.x + r.width / 2, clientY: r.y + r.height / 2, bubbles: true, composed: true };
    confirm.dispatchEvent(new PointerEvent("pointerdown", at));
    confirm.dispatchEvent(new PointerEvent("pointerup", at));
    confirm.dispatchEvent(new MouseEvent("click", { ...at, detail: 1 }));
    confirm.click();
    confirm.focus();
    confirm.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, composed: true }));
    return true;
  });
  assert.equal(reached, true);
  await sleep(400);
  assert.equal(await p.evaluate(() => window.outcomes.deleteA), null, "still pending");
  assert.ok(await readCard(t), "the card is still open");
  await confirmCard(t);
  assert.equal((await outcome(p, "deleteA")).gate, "confirmed");
});

test("nothing of coworkkit/testing confirms from inside the page: the page cannot import it, and a page-side object is refused", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const t = testingPage(p);
  await p.evaluate(() => window.call("deleteA"));
  // The module imports node's own and throws in a page: a page (or a hostile agent in it) loading
  // it gets no function at all.
  const loaded = await p.evaluate(async () => {
    try { await import("/pkg/testing.js"); return "loaded"; } catch (e) { return `refused: ${e.name}`; }
  });
  assert.match(loaded, /^refused: /);
  // Handed something that is not the test's page (an element handle, the page's window as a
  // value, nothing), each function refuses with a code, before touching the page.
  const notPages = [undefined, null, {}, { mouse: {}, keyboard: {} }, await p.evaluate(() => ({ location: String(location) }))];
  if (ENGINE === "chromium") notPages.push(await t.evaluateHandle(() => window));
  for (const notPage of notPages) {
    for (const [name, fn] of [["readCard", readCard], ["confirmCard", confirmCard], ["cancelCard", cancelCard]]) {
      await assert.rejects(fn(notPage), (e) => e instanceof TypeError && e.message.startsWith("coworkkit: testing: ")
        && e.message.includes(name) && e.message.endsWith("(code: unsupported_page)"), `${name}(${String(notPage)})`);
    }
  }
  await assert.rejects(confirmCard(t, { timeout: -1 }), /\(code: invalid_option\)$/);
  await assert.rejects(cancelCard(t, { reason: 7 }), /\(code: invalid_option\)$/);
  assert.equal(await p.evaluate(() => window.outcomes.deleteA), null, "still pending");
  const part = await onPart(p, "confirm", function () { return this.getAttribute("part"); });
  assert.equal(part, "confirm", "the card is there all along");
});

test("confirmCard with no card waiting fails after its timeout, saying what it waited for", { timeout: TEST_TIMEOUT }, async () => {
  const p = await page();
  const started = Date.now();
  await assert.rejects(confirmCard(testingPage(p), { timeout: 300 }),
    /^Error: coworkkit: testing: no open card with Confirm armed within 300 ms; the card: null\..*\(code: timeout\)$/);
  assert.ok(Date.now() - started >= 300);
});
