// Every closure and listener the SDK hands to the browser has an owner (STYLE habits 3–4):
// churning actions and cards leaves no listeners, DOM or wasm memory behind, in every engine.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, clickPart, waitCard, waitArmed, collectGarbage, TEST_TIMEOUT } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/**
 * Live event listeners and elements (the SDK's closed shadow roots included): through CDP's
 * DOMDebugger.getEventListeners in Chromium, through the page tap's count of addEventListener
 * minus removeEventListener in Firefox and WebKit (drivers/tap.js).
 */
const listenerCount = (page) => page.listenerCount();

test("10,000 actions registered and disposed, and 1,000 cards settled, leave nothing behind", { timeout: TEST_TIMEOUT }, async () => {
  const page = await openFixture(env);
  await page.evaluate(() => {
    window.ck = new window.coworkkit.Coworkkit({ armDelayMs: 0 });
  });
  const churnActions = (n) => page.evaluate((n) => {
    for (let i = 0; i < n; i++) {
      const h = window.ck.defineAction({ name: `a${i}`, description: "d", run: () => i });
      const off = window.ck.useAction({ name: `b${i}`, description: "d", control: "hard", run: () => i });
      const unsubscribe = window.ck.on("record", () => {});
      h.dispose();
      off();
      unsubscribe();
    }
  }, n);
  const churnCards = (n) => page.evaluate(async (n) => {
    const h = window.ck.defineAction({ name: "deleteThing", description: "d", control: "hard", run: () => 1 });
    for (let i = 0; i < n; i++) {
      const done = window.ck.invoke({ name: "deleteThing", args: { i } });
      window.ck.cancel(window.ck.pending()[0].id);
      await done;
    }
    h.dispose();
  }, n);
  const confirmCards = async (n) => {
    await page.evaluate(() => {
      window.h = window.ck.defineAction({ name: "dropThing", description: "d", control: "hard", run: () => 1 });
    });
    for (let i = 0; i < n; i++) {
      await page.evaluate((i) => { window.last = window.ck.invoke({ name: "dropThing", args: { i } }); }, i);
      await waitArmed(page);
      await clickPart(page, "confirm");
      assert.equal((await page.evaluate(() => window.last)).gate, "confirmed");
    }
    await page.evaluate(() => window.h.dispose());
  };
  // Closures handed to JS (a handle's dispose, an unsubscribe function) are freed by
  // wasm-bindgen's FinalizationRegistry when JS collects them: collect, and let the finalizers
  // run before reading the memory.
  const wasmBytes = async () => {
    await collectGarbage(page);
    return page.evaluate(() => window.wasmMemoryBytes());
  };

  // Warm up: the card layer is created once and kept; the engine's memory of the last 1024
  // settled calls fills up; allocators reach their working size.
  await churnActions(1000);
  await churnCards(1100);
  await confirmCards(5);
  const before = { ...(await listenerCount(page)), wasm: await wasmBytes() };

  await churnActions(10_000);
  await churnCards(1000);
  await confirmCards(20);
  const afterChurn = { ...(await listenerCount(page)), wasm: await wasmBytes() };

  assert.equal(afterChurn.count, before.count, "event listeners");
  assert.equal(afterChurn.elements, before.elements, "elements");
  assert.equal(afterChurn.wasm, before.wasm, "wasm linear memory grew");
  await page.evaluate(() => window.ck.dispose());
  const disposed = await listenerCount(page);
  assert.ok(disposed.count < before.count, "dispose removes the SDK's own listeners");
  assert.deepEqual(page.problems, []);
});
