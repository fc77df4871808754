// The demo's passkey confirmation (issue 20), walked through as a person would, with the demo's
// own server endpoints (scripts/demo-api.mjs): without a passkey the page says why the card
// alone is not enough; "Set up a passkey for confirmations" enrols one (a trusted click, the
// driver's virtual authenticator); deleting a project then takes the card's Confirm and the
// passkey, and the server checks the receipt before anything is deleted, once; an authenticator
// that does not verify the person deletes nothing. WebKit, which has no WebAuthn, keeps the plain
// card and says so; on 127.0.0.1 the page says passkeys need a domain name.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../scripts/serve.mjs";
import { demoApi } from "../../scripts/demo-api.mjs";
import { launchBrowser } from "./drivers/index.mjs";
import { click, onPart, partCenter, sleep, waitFor, ENGINE, TEST_TIMEOUT } from "./harness.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const VIRTUAL = ENGINE !== "webkit";
let browser, server, local;
before(async () => {
  browser = await launchBrowser();
  server = await startServer({
    mounts: [["/pkg/", join(ROOT, "pkg")], ["/", join(ROOT, "www")]],
    html: browser.html,
    api: demoApi(),
  });
  local = server.url.replace("127.0.0.1", "localhost");
});
after(async () => { await browser?.close(); await server?.close(); });

async function openDemo(url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await waitFor(page, () => document.documentElement.dataset.ready === "true");
  return page;
}
const status = (page) => page.evaluate(() => document.getElementById("passkey-status").textContent);
const idle = (page) => waitFor(page, () => document.getElementById("transcript").getAttribute("aria-busy") === "false", undefined, 15000);
const lastReply = (page) => page.evaluate(() => [...document.querySelectorAll("#transcript .msg.assistant:not(.typing) .bubble")].at(-1)?.textContent);
async function type(page, text) {
  await click(page, "#chat-input");
  await page.evaluate(() => { document.getElementById("chat-input").value = ""; });
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}
async function confirmWhenArmed(page) {
  for (const until = Date.now() + 10000; ; await sleep(25)) {
    const armed = await onPart(page, "confirm", function () { return this.dataset.armed === "true" && this.dataset.waiting !== "true"; });
    if (armed) break;
    if (Date.now() > until) throw new Error("Confirm never armed");
  }
  const at = await partCenter(page, "confirm");
  await page.mouse.click(at.x, at.y);
}
const projects = (page) => page.evaluate(() => [...document.querySelectorAll("#project-nav .nav-name")].map((e) => e.textContent));

test("the demo: a passkey set up in the page makes deleting a project take it, and the server checks every receipt", { timeout: TEST_TIMEOUT, skip: VIRTUAL ? false : `${ENGINE}: no WebAuthn in this engine (the next test says what the demo does there)` }, async () => {
  const page = await openDemo(local);
  try {
    const auth = await page.addVirtualAuthenticator();
    assert.match(await status(page), /An agent that drives your browser could click it too/);
    assert.equal(await page.evaluate(() => document.getElementById("passkey-setup").disabled), false);
    await click(page, "#passkey-setup");
    await waitFor(page, () => document.getElementById("passkey-status").classList.contains("on"), undefined, 10000);
    assert.match(await status(page), /now takes your passkey after Confirm/);
    assert.match(await page.evaluate(() => [...document.querySelectorAll("#transcript .note")].at(-1).textContent), /set up a passkey/);

    // The person's authenticator cannot verify them now: the card says so, nothing is deleted.
    await auth.setUserVerified(false);
    await type(page, "delete Website redesign");
    for (const until = Date.now() + 10000; !(await partCenter(page, "confirm")); await sleep(25)) {
      if (Date.now() > until) throw new Error("no card");
    }
    assert.equal(await onPart(page, "confirm", function () { return this.textContent; }), "Confirm with passkey");
    await confirmWhenArmed(page);
    await waitFor(page, () => true);
    for (const until = Date.now() + 10000; ; await sleep(50)) {
      const said = await onPart(page, "status", function () { return this.hidden ? "" : this.textContent; });
      if (/did not verify you|did not finish/.test(said)) break;
      if (Date.now() > until) throw new Error(`the card never said the passkey failed: "${said}"`);
    }
    assert.ok((await projects(page)).includes("Website redesign"), "nothing deleted");
    const cancel = await partCenter(page, "cancel");
    await page.mouse.click(cancel.x, cancel.y);
    await idle(page);
    assert.match(await lastReply(page), /Website redesign stays/);

    // Now it verifies: the card, the passkey, the server's check, then the delete.
    await auth.setUserVerified(true);
    await type(page, "delete Website redesign");
    for (const until = Date.now() + 10000; !(await partCenter(page, "confirm")); await sleep(25)) {
      if (Date.now() > until) throw new Error("no card");
    }
    await confirmWhenArmed(page);
    await idle(page);
    assert.equal(await lastReply(page), "Deleted Website redesign and its 11 tasks, confirmed with your passkey and checked by the server.");
    assert.ok(!(await projects(page)).includes("Website redesign"));
    const record = await page.evaluate(() => window.demo.records.at(-1));
    assert.deepEqual([record.action, record.gate, record.verification?.method], ["deleteProject", "confirmed", "passkey"]);
    const row = await onPart(page, "outcome", function () { return this.textContent; });
    assert.match(row ?? "", /passkey/, "the Watch panel shows the passkey");

    // The server checks every receipt (coworkkit/server): the same one again, for this project
    // or another, is refused; and a member may not delete, whatever receipt they bring.
    const replay = await page.evaluate(async (receipt) => {
      const post = (user, projectId) => fetch("/api/projects/delete", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user, projectId, receipt }) })
        .then(async (r) => [r.status, (await r.json()).error]);
      return [await post("ann", "p1"), await post("ann", "p2"), await post("max", "p1")];
    }, record.verification.receipt);
    for (const [code] of replay) assert.equal(code, 403, JSON.stringify(replay));
    // (The signature counter the server stored back already gives the replay away; the nonce would too.)
    assert.match(replay[0][1], /^refused \((replayed|bad_assertion)\): coworkkit: (the nonce .* was used before|the assertion did not verify: Response counter)/);
    assert.match(replay[1][1], /^refused \(wrong_call\): coworkkit: the receipt approves deleteProject with args \{"projectId":"p1"\}, not \{"projectId":"p2"\}/);
    assert.match(replay[2][1], /^refused: only an admin deletes a project, and max is a member/);
    // The three refused requests are the only console errors (Chromium logs each failed load).
    assert.deepEqual(page.problems.filter((x) => !/status of 403/.test(x)), []);
  } finally {
    await page.close();
  }
});

test("the demo where passkeys cannot work: the plain card stays, and the page says why", { timeout: TEST_TIMEOUT }, async () => {
  // On 127.0.0.1 in every engine (no domain for the relying party), and on localhost in WebKit.
  const urls = [server.url, ...(VIRTUAL ? [] : [local])];
  for (const url of urls) {
    const page = await openDemo(url);
    try {
      const why = await status(page);
      assert.match(why, url === server.url ? /need a domain name/ : /cannot enrol passkeys|secure/, url);
      assert.equal(await page.evaluate(() => document.getElementById("passkey-setup").disabled), true, url);
      // The delete still asks on the card, a plain one.
      await type(page, "delete Q3 hiring");
      for (const until = Date.now() + 10000; !(await partCenter(page, "confirm")); await sleep(25)) {
        if (Date.now() > until) throw new Error("no card");
      }
      assert.equal(await onPart(page, "confirm", function () { return this.textContent; }), "Confirm");
      const cancel = await partCenter(page, "cancel");
      await page.mouse.click(cancel.x, cancel.y);
      await idle(page);
      assert.match(await lastReply(page), /Q3 hiring stays/);
    } finally {
      await page.close();
    }
  }
});
