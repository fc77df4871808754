// The nonce stores of coworkkit/server (SPEC §13): memoryNonces in this process, redisNonces
// against a real Redis server (tests/server/redis.mjs), and what each does at its edges.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { memoryNonces, redisNonces } from "../../src/server/index.js";
import { connect, sharedRedis, stopSharedRedis } from "./redis.mjs";

const nonce = () => randomBytes(16).toString("hex");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("memoryNonces: a nonce is claimed once while it lives, and dropped once its time has passed", async () => {
  const store = memoryNonces();
  const n = nonce();
  assert.equal(await store.claim(n, Date.now() + 150), true);
  assert.equal(await store.claim(n, Date.now() + 150), false);
  assert.equal(await store.claim(nonce(), Date.now() + 60_000), true);
  assert.equal(store.size, 2);
  await sleep(200);
  assert.equal(store.size, 1, "the expired nonce is gone");
  assert.equal(await store.claim(n, Date.now() + 150), true, "claimable again once its statement can no longer be accepted");
});

test("memoryNonces at its bound refuses new claims (nonce_store_full) rather than forget a live one, and takes claims again as nonces expire", async () => {
  const store = memoryNonces({ max: 3 });
  const live = [nonce(), nonce()];
  for (const n of live) assert.equal(await store.claim(n, Date.now() + 60_000), true);
  const brief = nonce();
  assert.equal(await store.claim(brief, Date.now() + 100), true);
  await assert.rejects(store.claim(nonce(), Date.now() + 60_000), (e) => e.code === "nonce_store_full" && /^coworkkit: memoryNonces holds 3 unexpired nonces/.test(e.message));
  for (const n of live) assert.equal(await store.claim(n, Date.now() + 60_000), false, "the live ones are still refused");
  await sleep(150);
  assert.equal(await store.claim(nonce(), Date.now() + 60_000), true, "the expired one made room");
  assert.equal(store.size, 3);
});

test("the stores refuse what is not a nonce or a time, and bad settings, with invalid_options", async () => {
  const store = memoryNonces();
  for (const [n, t] of [["", 1], [5, 1], [nonce(), "soon"], [nonce(), NaN]]) {
    await assert.rejects(store.claim(n, t), (e) => e.code === "invalid_options" && /^coworkkit: /.test(e.message));
  }
  assert.throws(() => memoryNonces({ max: 0 }), (e) => e.code === "invalid_options" && /max must be a positive integer, not 0/.test(e.message));
  assert.throws(() => redisNonces({}), (e) => e.code === "invalid_options" && /needs a node-redis client/.test(e.message));
  assert.throws(() => redisNonces({ set() {} }, { prefix: 1 }), (e) => e.code === "invalid_options");
  const odd = redisNonces({ set: async () => 1 });
  await assert.rejects(odd.claim(nonce(), Date.now() + 1000), (e) => e.code === "invalid_options" && /not "OK" or null/.test(e.message));
});

// Redis (tests/server/redis.mjs): started by the first test that needs it.
const clients = [];
after(async () => {
  for (const c of clients) await c.quit().catch(() => {});
  await stopSharedRedis();
});
const client = async () => { const c = await connect((await sharedRedis()).url); clients.push(c); return c; };

test("redisNonces: one SET <prefix><nonce> 1 NX PXAT <expiresAt>; a second claim is false, from any client, until Redis drops the key at expiresAt", async () => {
  const [a, b] = [await client(), await client()];
  const sent = [];
  const spy = { set: (...args) => { sent.push(args); return a.set(...args); } };
  const n = nonce();
  const until = Date.now() + 400;
  assert.equal(await redisNonces(spy).claim(n, until), true);
  assert.deepEqual(sent, [[`coworkkit:nonce:${n}`, "1", { NX: true, PXAT: until }]]);
  assert.equal(await redisNonces(b).claim(n, until), false, "another connection finds it");
  const ttl = await b.pTTL(`coworkkit:nonce:${n}`);
  assert.ok(ttl > 0 && ttl <= 400, `Redis drops it at expiresAt (PTTL ${ttl})`);
  await sleep(500);
  assert.equal(await b.exists(`coworkkit:nonce:${n}`), 0);
  assert.equal(await redisNonces(b).claim(n, Date.now() + 1000), true, "claimable again once expired");
});

test("redisNonces: claims of one nonce at once from many clients: exactly one is true; a prefix is a namespace of its own", async () => {
  const clientsAt = await Promise.all(Array.from({ length: 8 }, () => client()));
  const n = nonce();
  const answers = await Promise.all(clientsAt.map((c) => redisNonces(c).claim(n, Date.now() + 60_000)));
  assert.deepEqual(answers.filter(Boolean).length, 1, JSON.stringify(answers));
  assert.equal(await redisNonces(clientsAt[0], { prefix: "other-app:" }).claim(n, Date.now() + 60_000), true);
  assert.equal(await clientsAt[0].get(`other-app:${n}`), "1");
});
