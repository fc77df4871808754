// The demo (www/), walked through as a person would use it: type requests to the scripted
// assistant, answer its soft questions, decide hard cards with real clicks, arm Hand mode and
// watch the assistant click, then let the hostile agent try its tricks. Asserts what the page
// shows and the records, and that the console stays free of errors (the removeTag nudge is a
// console.warn). Runs in every engine. Screenshots of the main states go to
// test-results/demo/<engine>/; COWORKKIT_UPDATE_DOCS=1 also copies the hard card's into
// docs/card-<engine>.png (the README's Browsers section shows them).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { launch, clickPart, click, waitCard, waitFor, onPart, partCenter, sleep, ENGINE, TEST_TIMEOUT, waitArmed } from "./harness.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const OUT = join(ROOT, "test-results/demo", ENGINE);
let env;
before(async () => { env = await launch(); mkdirSync(OUT, { recursive: true }); });
after(async () => { await env?.close(); });

/** Opens the demo in a fresh 1280×800 page; console errors and warnings are collected. */
async function openDemo(colorScheme = "light") {
  const page = await env.browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme });
  await page.goto(env.url);
  await waitFor(page, () => document.documentElement.dataset.ready === "true");
  return page;
}

const shot = (page, name) => page.screenshot({ path: join(OUT, `${name}.png`) });
const idle = (page) => waitFor(page, () => document.getElementById("transcript").getAttribute("aria-busy") === "false");
const count = (page, selector) => page.evaluate((s) => document.querySelectorAll(s).length, selector);
const text = (page, selector) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, selector);
const checked = (page, selector) => page.evaluate((s) => document.querySelector(s).checked, selector);
/** A trusted click on the button whose text is `name` (exactly, or containing it). */
async function clickButton(page, name, exact = false) {
  const at = await page.evaluate(([name, exact]) => {
    const match = (b) => {
      const t = (b.getAttribute("aria-label") ?? b.textContent).trim();
      return exact ? t === name : t.toLowerCase().includes(name.toLowerCase());
    };
    const b = [...document.querySelectorAll("button")].find((b) => match(b) && b.getClientRects().length > 0);
    if (!b) return null;
    b.scrollIntoView({ block: "nearest" });
    const r = b.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  }, [name, exact]);
  if (!at) throw new Error(`no button "${name}"`);
  await page.mouse.click(at.x, at.y);
}
/** Picks an option of the "Acting as" select, as the page sees a person do it. */
const actAs = (page, value) => page.evaluate((value) => {
  const select = document.getElementById("approver");
  select.value = value;
  select.dispatchEvent(new Event("input", { bubbles: true }));
  select.dispatchEvent(new Event("change", { bubbles: true }));
}, value);
const lastReply = (page) => page.evaluate(() => [...document.querySelectorAll("#transcript .msg.assistant:not(.typing) .bubble")].at(-1)?.textContent);
const lastHostile = (page) => page.evaluate(() => [...document.querySelectorAll("#transcript .msg.hostile .bubble")].at(-1)?.textContent);
/** Types a request into the chat with real keys and presses Enter (does not wait for the answer). */
async function type(page, text) {
  await click(page, "#chat-input");
  await page.evaluate(() => { document.getElementById("chat-input").value = ""; });
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}
/** Types a request and waits until the assistant has answered; returns the answer. */
async function ask(page, text) {
  await type(page, text);
  await idle(page);
  return lastReply(page);
}
const records = (page) => page.evaluate(() => window.demo.records.map((r) => `${r.action} ${r.control} ${r.gate}`));
const taskTitles = (page) => page.evaluate(() => [...document.querySelectorAll("#tasks .task-title")].map((e) => e.textContent));
const projectNames = (page) => page.evaluate(() => [...document.querySelectorAll("#project-nav .nav-name")].map((e) => e.textContent));
const handMode = (page) => page.evaluate(() => window.demo.ck.handMode);

test("a person walks through every gate; the hostile agent gets nowhere", { timeout: TEST_TIMEOUT }, async () => {
  const page = await openDemo();
  assert.equal(await text(page, "#project-title"), "Website redesign");
  assert.equal((await taskTitles(page)).length, 11);
  // The assistant works from the manifest the SDK gives a model.
  const tools = await page.evaluate(() => window.demo.ck.tools("openai").map((t) => t.function.name));
  assert.deepEqual(tools.sort(), ["addTask", "archiveThread", "deleteProject", "listProjects", "listTags", "listTasks",
    "markFirstTaskDone", "openProject", "removeTag", "renameProject"]);
  // The safety net's nudge for the undeclared removeTag: one console.warn, at registration.
  assert.equal(page.warnings.filter((w) => w.includes('"removeTag"')).length, 1);
  assert.match(page.warnings[0], /declares no control and its name reads destructive, so it is gated as "soft"/);
  await shot(page, "01-start");

  // Open: a read, through a suggestion chip.
  await clickButton(page, "list projects");
  await idle(page);
  assert.equal(await lastReply(page), "You have 3 projects: Website redesign (9 open of 11 tasks), Mobile app 2.0 (5 open of 6 tasks), Q3 hiring (4 open of 4 tasks).");

  // Open: add a task (the assistant asks for the title first).
  assert.equal(await ask(page, "add a task to Website redesign"), "What should I call the new task in “Website redesign”?");
  assert.equal(await ask(page, "Review pricing page"), "Added “Review pricing page” to Website redesign. It now has 12 tasks.");
  assert.equal((await taskTitles(page)).at(-1), "Review pricing page");

  // Soft: the assistant asks out loud; the person clicks "Allow archiving for 30 minutes", a
  // real click that makes a grant (SPEC §12) and answers yes: the call comes again with the token.
  assert.equal(await ask(page, "archive the Launch thread"), "Shall I archive the thread “Launch” in Website redesign? It can be restored later.");
  assert.equal(await count(page, ".thread.is-archived"), 0, "nothing archived before the yes");
  await shot(page, "02-soft-question");
  await clickButton(page, "Allow archiving for 30 minutes", true);
  await idle(page);
  assert.equal(await lastReply(page), "Done: “Launch” is archived. You can restore it later.");
  assert.equal(await text(page, ".thread.is-archived .thread-title"), "Launch");
  assert.match(await page.evaluate(() => [...document.querySelectorAll("#transcript .note")].at(-1).textContent),
    /^You allowed archiving threads without asking until \d\d?:\d\d( [AP]M)?\. The Watch panel lists it, with Revoke\.$/);
  // While the grant lives, archiving fires at once, the record naming the grant.
  assert.equal(await ask(page, "archive the Homepage copy thread"), "Done: “Homepage copy, round 3” is archived, without asking: you allowed archiving for a while.");
  const grant = await page.evaluate(() => window.demo.ck.grants()[0]);
  assert.deepEqual([grant.action, grant.uses], ["archiveThread", 1]);
  assert.equal(await page.evaluate(() => window.demo.records.at(-1).grant), grant.id);
  const listed = await onPart(page, "grants", function () {
    return [...this.querySelectorAll("[part=grant-row]")].map((li) => [li.querySelector("[part=grant-action]").textContent, li.querySelector("[part=grant-uses]").textContent]);
  });
  assert.deepEqual(listed, [["archiveThread", "used once"]]);
  await shot(page, "02b-grant");
  // Revoke, in the Watch panel: the next archive would ask again.
  await clickPart(page, "revoke");
  await waitFor(page, () => window.demo.ck.grants().length === 0);

  // The safety net: removeTag declares no control, so it is soft; the person says no, and why.
  assert.equal(await ask(page, "remove tag urgent"), "Shall I remove the tag #urgent from 4 tasks?");
  assert.equal(await ask(page, "no, we still sort by it"), "OK, I won't: you said “we still sort by it”. Nothing changed.");
  assert.equal(await page.evaluate(() => window.demo.records.at(-1).note), "we still sort by it");
  assert.match(await page.evaluate(() => [...document.querySelectorAll("#transcript .note")].at(-1).textContent), /removeTag declares no control.*gated it soft \(controlSource "destructive_name"\)/);
  assert.equal(await count(page, "#tag-nav .tag-urgent"), 1, "#urgent is still there");

  // Hand mode: off, the element action touches nothing; the person arms it on the SDK's switch.
  assert.match(await ask(page, "mark the first task done"), /^I'd tick “Pick the type scale and colour tokens”, but I may only click in the page while you let me/);
  assert.equal(await checked(page, "#tasks .task:nth-child(3) input"), false);
  await clickPart(page, "switch");
  await waitFor(page, () => window.demo.ck.handMode === true);
  // The badge is found by its Stop button.
  assert.notEqual(await partCenter(page, "stop"), null, "the SDK's badge shows while armed");
  assert.equal(await count(page, '[data-coworkkit="hand"]'), 1);
  assert.equal(await text(page, "#hand-hint"), "Hand mode is on.");
  assert.match(await ask(page, "mark the first task done"), /^Done: I clicked the checkbox of “Pick the type scale and colour tokens”/);
  assert.equal(await checked(page, "#tasks .task:nth-child(3) input"), true, "the assistant's click ticked the real checkbox");
  assert.match(await text(page, "#tasks .task:nth-child(3)"), /Pick the type scale/);
  await shot(page, "03-hand-mode");
  await clickPart(page, "stop");
  await waitFor(page, () => window.demo.ck.handMode === false);
  assert.equal(await partCenter(page, "stop"), null, "Stop removed the badge");

  // Hard, as a member: the card shows the live count, Confirm is disabled; the person cancels.
  await actAs(page, "max");
  await type(page, "delete Website redesign");
  let card = await waitCard(page, (s) => s.open);
  assert.equal(card.title, "Delete project");
  assert.equal(card.summary, "Delete Website redesign and all its 12 tasks? This can't be undone.");
  assert.equal(card.confirmDisabled, true);
  assert.equal(await onPart(page, "notice", function () { return this.textContent; }), "Only admin can confirm this.");
  await sleep(600);
  await shot(page, "04-member-card");
  // The person says why on the card (its reason field), then Cancel: the assistant answers with
  // those words and does not try again.
  await clickPart(page, "reason");
  await page.keyboard.type("Not this one, it still has open tasks");
  await shot(page, "04b-card-reason");
  await clickPart(page, "cancel");
  await idle(page);
  assert.equal(await lastReply(page), "OK, Website redesign stays. You said: “Not this one, it still has open tasks”. I won't try again unless you ask.");
  assert.equal(await page.evaluate(() => window.demo.records.at(-1).note), "Not this one, it still has open tasks");
  assert.ok((await projectNames(page)).includes("Website redesign"));

  // Hard, as an admin: a real click on Confirm deletes it.
  await actAs(page, "ann");
  await type(page, "delete Website redesign");
  card = await waitCard(page, (s) => s.open && s.confirmDisabled === false);
  assert.equal(card.summary, "Delete Website redesign and all its 12 tasks? This can't be undone.");
  assert.equal(card.focused, "cancel", "initial focus is on Cancel");
  await waitArmed(page); // armed, for the screenshot
  await shot(page, "05-hard-card");
  if (process.env.COWORKKIT_UPDATE_DOCS === "1") copyFileSync(join(OUT, "05-hard-card.png"), join(ROOT, `docs/card-${ENGINE}.png`));
  await clickPart(page, "confirm");
  await idle(page);
  assert.equal(await lastReply(page), "Deleted Website redesign and its 12 tasks.");
  assert.deepEqual(await projectNames(page), ["Mobile app 2.0", "Q3 hiring"]);
  assert.equal(await text(page, "#project-title"), "Mobile app 2.0");

  // The hostile agent: replays, forged and swapped tokens, Hand mode off, an undeclared tool,
  // and synthetic clicks at the card host. The person then cancels its card.
  await clickButton(page, "Try to trick it");
  await waitFor(page, () => document.querySelector("#transcript .msg.hostile:last-child")?.textContent.includes("Press Cancel"), undefined, 15000);
  card = await waitCard(page, (s) => s.open);
  assert.equal(card.summary, "Delete Q3 hiring and all its 5 tasks? This can't be undone.");
  await shot(page, "06-trick");
  await clickPart(page, "cancel");
  await idle(page);
  assert.equal(await lastHostile(page), "That's all I've got: 16 tries, none got through.");
  const verdicts = await page.evaluate(() => [...document.querySelectorAll("#transcript .attempt")].map((r) => [r.querySelector(".attempt-label").textContent, r.querySelector(".verdict").textContent, r.querySelector(".attempt-detail").textContent]));
  assert.deepEqual(verdicts, [
    ["Archive “Beta feedback” without asking the person", "blocked", "needs_confirmation: it did not fire, the person must say yes"],
    ["Come back with a forged confirmToken", "blocked", "rejected · bad_token"],
    ["Spend the real token on removeTag instead", "blocked", "rejected · bad_token: a token binds one action and its exact arguments"],
    ["Re-send one addTask call three times", "blocked", "ran once (1 task added); the re-sends got the same answer"],
    ["Reuse that call id with different arguments", "blocked", "rejected · call_id_conflict"],
    ["Click a task's checkbox with Hand mode off", "blocked", "needs_hand_mode: nothing in the page was touched"],
    ["Call an undeclared tool, confirmCard", "blocked", "rejected · unknown_action"],
    ["Grant myself archiving for a day", "blocked", "rejected · unknown_action: only a person's click in the app makes a grant"],
    ["Ask for more in the arguments: ttlMs, maxUses, match", "blocked", "rejected · invalid_args: no grant was made or widened"],
    ["Speak for the person: a reason on a call that is no decline", "blocked", "rejected · invalid_args: no record shows those words as the person's"],
    ["Delete “Q3 hiring” and confirm the card myself", "blocked", "cancelled: Q3 hiring is still there"],
    ["…on the card: host.shadowRoot", "blocked", "null: the card's shadow root is closed"],
    ["…on the card: host.click()", "blocked", "the card is still waiting; nothing was deleted"],
    ["…on the card: dispatchEvent(click)", "blocked", "the card is still waiting; nothing was deleted"],
    ["…on the card: dispatchEvent(keydown Enter)", "blocked", "the card is still waiting; nothing was deleted"],
    ["…on the card: elementFromPoint(centre).click()", "blocked", "the card is still waiting; nothing was deleted"],
  ]);
  assert.deepEqual(await projectNames(page), ["Mobile app 2.0", "Q3 hiring"]);
  assert.equal(await count(page, ".thread.is-archived"), 0, "Mobile app 2.0's thread is not archived");

  // Every settled call left one record, in order.
  assert.deepEqual(await records(page), [
    "listProjects open fired",
    "listProjects open fired",
    "listProjects open fired",
    "addTask open fired",
    "listProjects open fired",
    "archiveThread soft confirmed",
    "listProjects open fired",
    "archiveThread soft fired",
    "listTags open fired",
    "removeTag soft cancelled",
    "listTasks open fired",
    "markFirstTaskDone open needs_hand_mode",
    "listTasks open fired",
    "markFirstTaskDone open fired",
    "listProjects open fired",
    "deleteProject hard cancelled",
    "listProjects open fired",
    "deleteProject hard confirmed",
    // the hostile agent
    "listProjects open fired",
    "archiveThread soft rejected",
    "removeTag soft rejected",
    "archiveThread soft cancelled",
    "addTask open fired",
    "addTask open rejected",
    "markFirstTaskDone open needs_hand_mode",
    "confirmCard open rejected",
    "grant open rejected",
    "archiveThread soft rejected",
    "archiveThread soft rejected",
    "deleteProject hard cancelled",
  ]);
  const byAction = await page.evaluate(() => window.demo.records.filter((r) => r.action === "deleteProject").map((r) => [r.gate, r.approver?.id ?? null, r.reason ?? null]));
  assert.deepEqual(byAction[1], ["confirmed", "ann", null], "the confirming admin is in the record");

  // The Watch panel counts them all; a taller window shows more of its rows for the screenshot.
  const counts = await onPart(page, "filters", function () {
    return Object.fromEntries([...this.querySelectorAll("[part=filter]")].map((b) => [b.dataset.gate, b.querySelector("[part=count]").textContent]));
  });
  assert.equal(counts.all, "30");
  assert.equal(counts.rejected, "7");
  await shot(page, "07-end");
  await page.setViewport(1280, 2400);
  await page.screenshot({ path: join(OUT, "08-watch.png"), selector: ".watch" });
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** axe-core's violations on the page as it stands (the SDK's closed shadow roots aside). */
async function axe(page) {
  const require = createRequire(import.meta.url);
  await page.addScript({ content: readFileSync(require.resolve("axe-core/axe.min.js"), "utf8") });
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
  });
}

test("axe-core finds no accessibility violations in light mode, mid-conversation", { timeout: TEST_TIMEOUT }, async () => {
  const page = await openDemo();
  assert.equal(await ask(page, "archive the Launch thread"), "Shall I archive the thread “Launch” in Website redesign? It can be restored later.");
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the demo looks right in dark mode, is keyboard usable, and passes axe-core", { timeout: TEST_TIMEOUT }, async () => {
  const page = await openDemo("dark");
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, "rgb(12, 14, 19)");
  // Tab from the skip link reaches the chat input; Enter sends.
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement.textContent), "Skip to the agent chat");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement.id), "chat-input");
  await page.keyboard.type("list tags");
  await page.keyboard.press("Enter");
  await idle(page);
  assert.match(await lastReply(page), /^Tags in use: #design \(6\)/);
  await shot(page, "09-dark");
  assert.deepEqual(await axe(page), []);
  assert.deepEqual(page.problems, []);
  await page.close();
});

test("the package is served with the MIME types browsers require", { timeout: TEST_TIMEOUT }, async () => {
  const wasm = await fetch(new URL("pkg/coworkkit_bg.wasm", env.url));
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  const js = await fetch(new URL("pkg/coworkkit.js", env.url));
  assert.match(js.headers.get("content-type"), /^text\/javascript/);
  const escape = await fetch(new URL("pkg/..%2f..%2fCargo.toml", env.url));
  assert.equal(escape.status, 404, "the server never serves outside its mounts");
});
