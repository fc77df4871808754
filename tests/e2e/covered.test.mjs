// Clickjacking through the page (SPEC §8, issue 21): a page control the agent clicks while Hand
// mode is armed schedules a popover that opens above the card, drawn with other words and with
// `pointer-events: none`, so a person's click meant for the popover lands on Confirm beneath it.
// Where the browser can tell Confirm is covered (IntersectionObserver v2, Chromium), that click
// counts for nothing; once the cover goes, the arm delay starts over. Real input only: the
// driver's mouse.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, waitCard, clickPart, waitFor, sleep, onlyIn, waitArmed } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

const ARM_DELAY_MS = 300;

test("a card covered by a popover the agent opened is not confirmed by a click through it; uncovered, it is, after the arm delay",
  { timeout: 30000, ...onlyIn(["chromium"], "the engine reports no visibility (IntersectionObserver v2 is Chromium's); SECURITY.md says what that leaves") },
  async () => {
    const page = await openFixture(env);
    await page.evaluate((armDelayMs) => {
      // The page's own promo: a button that shows a full-window popover a moment later.
      const cover = document.createElement("div");
      cover.id = "cover";
      cover.popover = "manual";
      cover.textContent = "You won! Click anywhere to claim your prize";
      cover.style.cssText = "inset:0;width:100vw;height:100vh;margin:0;border:0;pointer-events:none;background:#fffffff0;font:32px sans-serif";
      document.body.append(cover);
      const promo = document.createElement("button");
      promo.id = "promo";
      promo.textContent = "Show the offer";
      promo.onclick = () => setTimeout(() => cover.showPopover(), 600);
      document.body.append(promo);
      window.runs = 0;
      window.ck = new window.coworkkit.Coworkkit({ armDelayMs });
      window.ck.defineAction({ name: "openPromo", description: "Shows the offer.", element: "#promo", operation: "click" });
      window.ck.defineAction({ name: "deleteAccount", description: "Deletes the account.", control: "hard", run: () => { window.runs++; } });
      window.ck.armHandMode(); // page.evaluate is a user gesture
    }, ARM_DELAY_MS);
    // The agent clicks the promo (an element action), then asks for the hard call.
    const promo = await page.evaluate(() => window.ck.invoke({ name: "openPromo" }));
    assert.equal(promo.gate, "fired");
    await page.evaluate(() => { window.outcome = null; window.ck.invoke({ name: "deleteAccount" }).then((o) => { window.outcome = o; }); });
    await waitCard(page, (s) => s.open);
    await waitFor(page, () => document.getElementById("cover").matches(":popover-open"));
    await sleep(250); // the browser reports the cover within about 100 ms
    // A trusted click at Confirm's place, through the popover: nothing.
    await clickPart(page, "confirm");
    await sleep(300);
    assert.equal(await page.evaluate(() => window.runs), 0, "the covered card was confirmed");
    assert.equal(await page.evaluate(() => window.outcome), null);
    assert.ok((await waitCard(page, (s) => s.open)).open, "the card stays");
    // The cover goes; a click right away is inside the restarted arm delay: nothing.
    await page.evaluate(() => document.getElementById("cover").hidePopover());
    await sleep(150);
    await clickPart(page, "confirm");
    await sleep(100);
    assert.equal(await page.evaluate(() => window.runs), 0, "confirmed inside the arm delay after the cover went");
    // After the delay, the same click confirms.
    await waitArmed(page);
    await clickPart(page, "confirm");
    await waitFor(page, () => window.outcome !== null);
    assert.equal(await page.evaluate(() => window.outcome.gate), "confirmed");
    assert.equal(await page.evaluate(() => window.runs), 1);
    await page.evaluate(() => window.ck.dispose());
  });
