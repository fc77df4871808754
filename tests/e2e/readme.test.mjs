// The README's "Usage" example, run as written (the one import line mapped to the built
// package) in every engine, with a person's real click on the card it opens; and its "Testing
// your app" example with Playwright's Chromium page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { launch, openFixture, clickPart, waitCard, waitFor, sleep, TEST_TIMEOUT, waitArmed, ENGINE } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

function readmeBlock(tag) {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const m = readme.match(new RegExp("```js " + tag + "\\n([\\s\\S]*?)```"));
  assert.ok(m, `README block ${tag}`);
  return m[1];
}

test("the README's Usage example runs as written: the card opens, a real click confirms", { timeout: TEST_TIMEOUT }, async () => {
  const source = readmeBlock("readme-usage");
  const importLine = 'import init, { Coworkkit } from "coworkkit";';
  assert.ok(source.startsWith(importLine), "the example starts with the package import");
  const page = await openFixture(env);
  await page.addScript({
    type: "module",
    content: `import init, { Coworkkit } from "/pkg/coworkkit.js";${source.slice(importLine.length)}
window.readmeOutcome = outcome;`,
  });
  const card = await waitCard(page, (s) => s.open);
  assert.equal(card.title, "Delete project");
  assert.equal(card.summary, "Delete p1 and all its tasks? This can't be undone.");
  await waitArmed(page);
  await clickPart(page, "confirm");
  await waitFor(page, () => window.readmeOutcome !== undefined);
  const outcome = await page.evaluate(() => window.readmeOutcome);
  assert.equal(outcome.gate, "confirmed");
  assert.equal(outcome.ok, true);
  assert.deepEqual(outcome.result, { deleted: "p1" });
  assert.match(outcome.callId, /^ck_[0-9a-f]{32}$/);
  assert.deepEqual(page.logs, ["deleteProject hard confirmed"]);
  assert.deepEqual(page.problems, []);
});

test("the README's Testing your app example runs as written with Playwright's Chromium page (coworkkit/testing)", ENGINE === "chromium"
  ? { timeout: TEST_TIMEOUT } : { skip: `${ENGINE}: the example is for Playwright's Chromium page` }, async () => {
  const source = readmeBlock("readme-testing");
  const lines = ['import { test, expect } from "@playwright/test";', 'import { readCard, confirmCard, cancelCard } from "coworkkit/testing";'];
  for (const line of lines) assert.ok(source.includes(`${line}\n`), `the example imports: ${line}`);
  assert.ok(source.includes('page.goto("/")'));
  // Its two imports mapped to the built package and to a small stand-in of @playwright/test's
  // `test` and `expect` (what the example uses of them); "/" is the fixture app.
  const app = `${env.url}fixtures/readme-app.html`;
  const body = source.replace(lines[0], "const { test, expect } = globalThis.readmeTesting;")
    .replace(lines[1], `import { readCard, confirmCard, cancelCard } from ${JSON.stringify(new URL("../../pkg/testing.js", import.meta.url).href)};`)
    .replaceAll('page.goto("/")', `page.goto(${JSON.stringify(app)})`);
  const tests = [];
  const expect = (actual) => ({
    toBe: (expected) => assert.strictEqual(actual, expected),
    toBeNull: () => assert.strictEqual(actual, null),
  });
  globalThis.readmeTesting = { test: (name, fn) => tests.push([name, fn]), expect };
  const dir = mkdtempSync(join(tmpdir(), "ck-readme-"));
  try {
    writeFileSync(join(dir, "spec.mjs"), body);
    await import(pathToFileURL(join(dir, "spec.mjs")).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  assert.deepEqual(tests.map(([name]) => name), ["deleting a project waits for a person's Confirm",
    "a person who says no, with a reason, is heard by the model"]);
  for (const [name, fn] of tests) {
    const driverPage = await env.browser.newPage({});
    try {
      await fn({ page: driverPage.page });
      assert.deepEqual(driverPage.problems, [], name);
    } finally {
      await driverPage.close();
    }
  }
});
