// The demo command's page: served on 127.0.0.1, its wasm loads, no console errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

test("the demo page loads the package with no console errors and answers an open call", async () => {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  await page.goto(env.url);
  await page.waitForSelector("html[data-ready=true]");
  await page.getByRole("button", { name: "listProjects (open)" }).click();
  await page.waitForFunction(() => document.getElementById("log").textContent.includes("fired"));
  assert.match(await page.textContent("#log"), /record: listProjects open → fired \(ok\)/);
  assert.deepEqual(problems, []);
  await context.close();
});

test("the package is served with the MIME types browsers require", async () => {
  const wasm = await fetch(new URL("pkg/coworkkit_bg.wasm", env.url));
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  const js = await fetch(new URL("pkg/coworkkit.js", env.url));
  assert.match(js.headers.get("content-type"), /^text\/javascript/);
  const escape = await fetch(new URL("pkg/..%2f..%2fCargo.toml", env.url));
  assert.equal(escape.status, 404, "the server never serves outside its mounts");
});
