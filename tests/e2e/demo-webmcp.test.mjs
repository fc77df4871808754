// The demo's "browser agent" mode (www/): where the browser has WebMCP (Chromium with
// --enable-features=WebMCP), Tasklane hands its actions to `document.modelContext`, and the
// scripted assistant can play the browser's own agent: it reads the tools with `getTools()` and
// calls them with `executeTool()`, so a person watches the same gates, and the same card, stop
// the browser's agent. Where there is none, the mode is off and the page says how to see it.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launch, clickPart, click, waitCard, waitFor, sleep, onlyIn, ENGINE, TEST_TIMEOUT, waitArmed } from "./harness.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const OUT = join(ROOT, "test-results/demo", ENGINE);
let env;
before(async () => {
  env = await launch({ chromium: { args: ["--enable-features=WebMCP"] } });
  mkdirSync(OUT, { recursive: true });
});
after(async () => { await env?.close(); });

async function openDemo(on = env) {
  const page = await on.browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(on.url);
  await waitFor(page, () => document.documentElement.dataset.ready === "true");
  return page;
}
const text = (page, selector) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);
const idle = (page) => waitFor(page, () => document.getElementById("transcript").getAttribute("aria-busy") === "false");
const lastReply = (page) => page.evaluate(() => [...document.querySelectorAll("#transcript .msg.assistant:not(.typing) .bubble")].at(-1)?.textContent);
async function type(page, words) {
  await click(page, "#chat-input");
  await page.evaluate(() => { document.getElementById("chat-input").value = ""; });
  await page.keyboard.type(words);
  await page.keyboard.press("Enter");
}
async function ask(page, words) {
  await type(page, words);
  await idle(page);
  return lastReply(page);
}
/** The doors the steps of the transcript went through, in order. */
const steps = (page) => page.evaluate(() => [...document.querySelectorAll("#transcript .step.by-agent")].map((r) => `${r.querySelector(".step-name").textContent} ${r.dataset.via} ${r.dataset.gate}`));
const records = (page) => page.evaluate(() => window.demo.records.map((r) => `${r.action} ${r.gate} ${r.via}`));

test("browser agent mode: the scripted assistant drives the page through document.modelContext, and the card stops it",
  onlyIn(["chromium"], "only Chromium has WebMCP (behind --enable-features=WebMCP); the SDK's WebMCP flows in this engine run through a standard-shaped model context in webmcp.test.mjs"), async () => {
    const page = await openDemo();
    await waitFor(page, () => document.getElementById("webmcp-status").classList.contains("on"));
    assert.equal(await text(page, "#webmcp-status"), "WebMCP: the browser's agent has 10 tools, behind the same gates.");
    const tools = await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => [t.name, t.annotations.consequentialHint]));
    assert.deepEqual(tools, [["addTask", false], ["archiveThread", true], ["deleteProject", true], ["listProjects", false], ["listTags", false],
      ["listTasks", false], ["markFirstTaskDone", false], ["openProject", false], ["removeTag", true], ["renameProject", false]]);

    // The person switches the assistant to the browser's agent (a real click on the radio).
    await click(page, 'input[name="door"][value="webmcp"]');
    assert.equal(await page.evaluate(() => document.querySelector('input[name="door"]:checked').value), "webmcp");
    assert.match(await text(page, "#transcript .note:last-of-type"), /plays the browser's own agent/);

    assert.equal(await ask(page, "list projects"), "You have 3 projects: Website redesign (9 open of 11 tasks), Mobile app 2.0 (5 open of 6 tasks), Q3 hiring (4 open of 4 tasks).");

    // Soft: the browser's agent gets needs_confirmation and a token; it asks; the person says yes.
    assert.equal(await ask(page, "archive the Launch thread"), "Shall I archive the thread “Launch” in Website redesign? It can be restored later.");
    assert.equal(await page.evaluate(() => document.querySelectorAll(".thread.is-archived").length), 0);
    assert.equal(await ask(page, "yes"), "Done: “Launch” is archived. You can restore it later.");

    // Hand mode is off: the browser's agent may not click in the page.
    assert.match(await ask(page, "mark the first task done"), /^I'd tick “Pick the type scale and colour tokens”, but I may only click in the page while you let me/);

    // Hard: executeTool waits on the card; a script's click does nothing; a person's Confirm runs it.
    await type(page, "delete Website redesign");
    const card = await waitCard(page, (s) => s.open && s.confirmDisabled === false);
    assert.equal(card.summary, "Delete Website redesign and all its 11 tasks? This can't be undone.");
    await sleep(600);
    await page.screenshot({ path: join(OUT, "10-webmcp-card.png") });
    await page.evaluate(() => document.querySelector('[data-coworkkit="card"]').click());
    await sleep(100);
    assert.equal((await steps(page)).at(-1), "deleteProject webmcp waiting", "the browser's agent is still waiting");
    assert.ok(await page.evaluate(() => window.demo.store.projects().some((x) => x.name === "Website redesign")), "nothing deleted by a script's click");
    await waitArmed(page);
    await clickPart(page, "confirm");
    await idle(page);
    assert.equal(await lastReply(page), "Deleted Website redesign and its 11 tasks.");

    // And back to the app's own tool loop.
    await click(page, 'input[name="door"][value="loop"]');
    assert.match(await ask(page, "list tags"), /^Tags in use:/);

    assert.deepEqual(await steps(page), [
      "listProjects webmcp fired",
      "listProjects webmcp fired", "archiveThread webmcp needs_confirmation",
      "archiveThread webmcp confirmed",
      "listTasks webmcp fired", "markFirstTaskDone webmcp needs_hand_mode",
      "listProjects webmcp fired", "deleteProject webmcp confirmed",
      "listTags tool_call fired",
    ]);
    assert.deepEqual(await records(page), [
      "listProjects fired webmcp", "listProjects fired webmcp", "archiveThread confirmed webmcp",
      "listTasks fired webmcp", "markFirstTaskDone needs_hand_mode webmcp",
      "listProjects fired webmcp", "deleteProject confirmed webmcp", "listTags fired tool_call",
    ]);
    assert.equal(await page.evaluate(() => window.demo.records.find((r) => r.action === "deleteProject").approver.id), "ann");
    const badges = await page.evaluate(() => document.querySelectorAll("#transcript .step-door").length);
    assert.equal(badges, 8, "each step of the browser's agent is marked WebMCP");
    assert.deepEqual(page.problems, []);
    await page.close();
  });

test("without WebMCP the browser-agent mode is off and the page says how to see it", { timeout: TEST_TIMEOUT }, async () => {
  // Chromium without the flag; the other engines as they are.
  const bare = ENGINE === "chromium" ? await launch() : env;
  try {
    const page = await openDemo(bare);
    assert.equal(await text(page, "#webmcp-status"), "No WebMCP in this browser: try chromium --enable-features=WebMCP");
    assert.equal(await page.evaluate(() => document.querySelector('input[name="door"][value="webmcp"]').disabled), true);
    assert.equal(await page.evaluate(() => window.demo.exposure), null);
    assert.match(await ask(page, "list tags"), /^Tags in use: #design \(6\)/);
    assert.equal(await page.evaluate(() => window.demo.records.at(-1).via), "tool_call");
    assert.deepEqual(page.problems, []);
    await page.close();
  } finally {
    if (bare !== env) await bare.close();
  }
});
