// The SDK's own DOM is styled where the page forbids inline styles (a Content Security Policy
// `style-src` without 'unsafe-inline'): its hosts adopt constructed stylesheets (src/js/page.js),
// which such a policy does not block, where a `<style>` element in a shadow root would be.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, onPart, waitCard, TEST_TIMEOUT } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

test("under style-src 'self', the card, the switch and the Watch panel keep their styles", { timeout: TEST_TIMEOUT }, async () => {
  const page = await openFixture(env, "fixtures/csp.html");
  // The policy is in force: the page's own inline <style> does not apply.
  const pageColor = await page.evaluate(() => getComputedStyle(document.querySelector("#outside")).color);
  assert.notEqual(pageColor, "rgb(1, 2, 3)");
  await page.evaluate(() => {
    const { Coworkkit } = window.coworkkit;
    window.ck = new Coworkkit({ armDelayMs: 100 });
    window.ck.defineAction({ name: "purgeAll", description: "Purge.", control: "hard", run: () => "purged" });
    window.ck.mountWatchPanel();
    window.ck.mountHandModeSwitch();
    window.ck.invoke({ name: "purgeAll", args: {} });
  });
  await waitCard(page, (s) => s.open);
  const style = (part, property) => onPart(page, part, function (property) { return getComputedStyle(this)[property]; }, property);
  // Values only the SDK's sheets give (a browser's defaults differ for each).
  assert.equal(await style("card", "paddingTop"), "24px");
  assert.equal(await style("confirm", "minWidth"), "96px");
  assert.equal(await style("panel", "borderTopLeftRadius"), "14px");
  assert.equal(await style("track", "width"), "32px");
});
