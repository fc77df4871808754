// README's server block (```js readme-server), run as written against browser-made receipts and
// a real Redis server, with three substitutions each checked to match once: the package name
// becomes src/server, the site becomes the one the receipts were made on, and `redis` is a
// wrapper that lets this file close the connection the block opens. `db` and `HttpError`, which
// the block leaves to the app, are this file's.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadReceipts, statementOf } from "./receipts.mjs";
import { sharedRedis, stopSharedRedis } from "./redis.mjs";
import { opened } from "./readme-redis.mjs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ALL = loadReceipts();
const README = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
const BLOCK = README.match(/```js readme-server\n([\s\S]*?)```/)?.[1];

after(async () => {
  for (const c of opened) await c.quit().catch(() => {});
  await stopSharedRedis();
});

/** `text` with `from` replaced by `to`, which must occur exactly once. */
function once(text, from, to) {
  assert.equal(text.split(from).length, 2, `README's server block has ${JSON.stringify(from)} once`);
  return text.replace(from, to);
}

/** The block as a module of its own, for the site `expect` of the saved receipts. */
async function readmeModule(expect) {
  assert.ok(BLOCK, "README.md has a ```js readme-server block");
  let code = once(BLOCK, 'from "coworkkit/server"', `from ${JSON.stringify(pathToFileURL(`${ROOT}src/server/index.js`).href)}`);
  code = once(code, 'from "redis"', 'from "./readme-redis.mjs"');
  code = once(code, 'origin: "https://app.example", rpID: "app.example"', `origin: ${JSON.stringify(expect.origin)}, rpID: ${JSON.stringify(expect.rpID)}`);
  const file = new URL(`./readme-server.${Math.random().toString(36).slice(2)}.tmp.mjs`, import.meta.url);
  writeFileSync(file, code);
  try {
    return await import(file.href);
  } finally {
    rmSync(file, { force: true });
  }
}

class HttpError extends Error {
  constructor(status, message) { super(message); this.status = status; }
}

for (const engine of Object.keys(ALL)) {
  const R = ALL[engine];
  test(`${engine}: README's server block deletes for an admin with her own passkey, and refuses a member, and her passkey in another admin's session`, async (t) => {
    process.env.REDIS_URL = (await sharedRedis()).url;
    const passkeys = R["ann-p1"].credentials;
    const deleted = [], counters = [];
    globalThis.HttpError = HttpError;
    globalThis.db = {
      passkeyOf: (userId, id) => passkeys.find((c) => c.id === id && c.user === userId) ?? null,
      setCounter: (id, counter) => counters.push([id, counter]),
      deleteProject: async (projectId, how) => deleted.push([projectId, how]),
    };
    const { deleteProject } = await readmeModule(R["ann-p1"].expect);
    t.mock.method(Date, "now", () => statementOf(R["ann-p1"]).issuedAt + 1000);
    const ann = { userId: "ann", role: "admin" };
    await deleteProject(ann, { projectId: "p1", receipt: R["ann-p1"].receipt });
    const id = R["ann-p1"].receipt.credential.id;
    assert.deepEqual(deleted, [["p1", { approvedWith: id }]]);
    assert.equal(counters.length, 1);
    await assert.rejects(deleteProject({ userId: "max", role: "member" }, { projectId: "p1", receipt: R["max-p1"].receipt }),
      (e) => e instanceof HttpError && e.status === 403);
    await assert.rejects(deleteProject({ userId: "bob", role: "admin" }, { projectId: "p1", receipt: R["ann-p1-again"].receipt }),
      (e) => e.code === "unknown_credential");
    await assert.rejects(deleteProject(ann, { projectId: "p2", receipt: R["ann-p1-again"].receipt }), (e) => e.code === "wrong_call");
    assert.equal(deleted.length, 1);
  });
}
