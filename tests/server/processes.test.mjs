// Several server processes of one app (SPEC §13): node child processes (tests/server/worker.mjs)
// that check the same browser-made receipt with coworkkit/server. Sharing redisNonces on a real
// Redis server, a receipt accepted by one is replayed in every other, also after a process is
// killed and started again, and of two at once exactly one accepts it. With memoryNonces each
// process would accept it: that is what the shared store is for.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { loadReceipts } from "./receipts.mjs";
import { sharedRedis, stopSharedRedis } from "./redis.mjs";

const WORKER = fileURLToPath(new URL("./worker.mjs", import.meta.url));
const ALL = loadReceipts();
/** The receipt of a card that waits a day: still live in real time when these tests run. */
const DAY = 86_400_000;

const live = new Set();
after(async () => {
  for (const p of live) p.kill("SIGKILL");
  await stopSharedRedis();
});

/** A server process; `check(file, user)` sends it a receipt and resolves with its answer. */
async function serverProcess(store, prefix) {
  const redis = store === "redis" ? await sharedRedis() : null;
  const child = fork(WORKER, [], {
    env: { ...process.env, COWORKKIT_STORE: store, COWORKKIT_REDIS_URL: redis?.url ?? "", COWORKKIT_PREFIX: prefix },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  live.add(child);
  const waiting = new Map();
  let next = 0;
  await new Promise((resolve, reject) => {
    child.once("message", (m) => (m.ready ? resolve() : reject(new Error(JSON.stringify(m)))));
    child.once("exit", (code) => reject(new Error(`the server process exited (${code}) before it was ready`)));
  });
  child.on("message", (m) => { waiting.get(m.id)?.(m); waiting.delete(m.id); });
  return {
    check: (file, user = file.user) => new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      child.send({ id, file, user, maxLifetimeMs: DAY });
    }),
    /** Killed, as a crash or a deploy does. */
    kill: async () => {
      const gone = new Promise((r) => child.once("exit", r));
      child.kill("SIGKILL");
      await gone;
      live.delete(child);
    },
  };
}

const prefix = () => `coworkkit-test:${randomBytes(6).toString("hex")}:`;
const outcome = (answer) => (answer.ok ? "accepted" : answer.code);

for (const engine of Object.keys(ALL)) {
  const file = ALL[engine]["long-lived"];

  test(`${engine}: two processes sharing redisNonces: a receipt accepted by one is replayed in the other, and stays refused after each restarts`, async () => {
    const shared = prefix();
    let [a, b] = await Promise.all([serverProcess("redis", shared), serverProcess("redis", shared)]);
    assert.equal(outcome(await a.check(file)), "accepted");
    const replay = await b.check(file);
    assert.equal(outcome(replay), "replayed", replay.message);
    assert.match(replay.message, /^coworkkit: the nonce ".+" was used before/);
    await a.kill();
    a = await serverProcess("redis", shared);
    assert.equal(outcome(await a.check(file)), "replayed", "after a restart of the process that accepted it");
    await b.kill();
    b = await serverProcess("redis", shared);
    assert.equal(outcome(await b.check(file)), "replayed", "after a restart of the other");
    await Promise.all([a.kill(), b.kill()]);
  });

  test(`${engine}: the same receipt at two processes at once: exactly one accepts it`, async () => {
    for (let round = 0; round < 3; round++) {
      const shared = prefix();
      const [a, b] = await Promise.all([serverProcess("redis", shared), serverProcess("redis", shared)]);
      const answers = (await Promise.all([a.check(file), b.check(file)])).map(outcome).sort();
      assert.deepEqual(answers, ["accepted", "replayed"], `round ${round}`);
      await Promise.all([a.kill(), b.kill()]);
    }
  });

  test(`${engine}: with memoryNonces instead, the second process and a restarted one accept the receipt again (why one process only)`, async () => {
    let a = await serverProcess("memory", "");
    const b = await serverProcess("memory", "");
    assert.equal(outcome(await a.check(file)), "accepted");
    assert.equal(outcome(await a.check(file)), "replayed", "in its own process");
    assert.equal(outcome(await b.check(file)), "accepted", "another process never saw it");
    await a.kill();
    a = await serverProcess("memory", "");
    assert.equal(outcome(await a.check(file)), "accepted", "a restarted process forgot it");
    await Promise.all([a.kill(), b.kill()]);
  });
}
