// The README's "Usage" example, run as written (the one import line mapped to the built
// package) in every engine, with a person's real click on the card it opens.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { launch, openFixture, clickPart, waitCard, waitFor, sleep, TEST_TIMEOUT, waitArmed } from "./harness.mjs";

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
