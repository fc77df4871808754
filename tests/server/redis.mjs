// The Redis server the tests share: COWORKKIT_REDIS_URL when the test command started one
// (scripts/test: `redis-server --port N --bind 127.0.0.1 --save '' --appendonly no`, stopped by
// its pid), else one started here the same way on a free loopback port and stopped by its pid
// when the file's tests end. Without redis-server installed, `startRedis` fails and says so: the
// tests that need it fail, never skip.
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { createClient } from "redis";

/** A free TCP port on 127.0.0.1 (free when asked). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** `{ url, stop }`: the test command's Redis (stop does nothing), or one of this process's. */
export async function startRedis() {
  if (process.env.COWORKKIT_REDIS_URL) return { url: process.env.COWORKKIT_REDIS_URL, stop: async () => {} };
  if (spawnSync("redis-server", ["--version"]).error) {
    throw new Error("redis-server is not installed: the redisNonces tests need a real Redis server (scripts/setup installs Debian's redis-server)");
  }
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  const url = `redis://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      const client = await createClient({ url, socket: { reconnectStrategy: false } }).on("error", () => {}).connect();
      await client.quit();
      break;
    } catch (error) {
      if (tries > 100 || child.exitCode !== null) { child.kill(); throw new Error(`redis-server on port ${port} did not answer: ${error.message}`); }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { url, stop: async () => { child.kill(); await exited; } };
}

let shared;
/**
 * This file's Redis, started at the first test that asks (so that, without redis-server, each
 * test that needs it fails with the reason rather than being cancelled by a failed hook).
 */
export function sharedRedis() {
  shared ??= startRedis();
  return shared;
}
/** Stops this file's Redis, if one was started. */
export async function stopSharedRedis() {
  const started = await shared?.catch(() => null);
  await started?.stop();
}

/** A connected node-redis client of `url`. */
export function connect(url) {
  return createClient({ url }).on("error", () => {}).connect();
}
