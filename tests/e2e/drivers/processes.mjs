// The child processes of the WebDriver-classic engines (geckodriver for Firefox, Xvfb and
// WebKitWebDriver for WebKit): a free port, readiness, a stop by the child's own pid, and a
// small JSON client for the WebDriver HTTP protocol.
import { createServer } from "node:net";

/** A port nobody listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/** Waits until the WebDriver server at `url` says it is ready (GET /status). */
export async function waitReady(url, child, name) {
  const until = Date.now() + 15000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      const r = await fetch(`${url}/status`);
      if ((await r.json()).value?.ready) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${name} did not become ready`);
}

/** Stops a child process by its own pid, and waits for it. */
export async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((r) => child.once("exit", r));
  process.kill(child.pid, "SIGTERM");
  await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
  if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, "SIGKILL");
}

/** A WebDriver error answer, as an Error whose `error` is the protocol's error code. */
export class WebDriverError extends Error {
  constructor(method, path, status, value) {
    super(`${method} ${path}: ${value?.error ?? status}: ${value?.message ?? ""}`.trim());
    this.name = "WebDriverError";
    this.error = value?.error ?? String(status);
  }
}

/** `send(method, path, body)` against the WebDriver HTTP server at `url`: the answer's `value`. */
export function webDriverClient(url) {
  return async (method, path, body) => {
    const r = await fetch(url + path, {
      method, headers: { "content-type": "application/json; charset=utf-8" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const answer = await r.json().catch(() => ({}));
    if (!r.ok) throw new WebDriverError(method, path, r.status, answer.value);
    return answer.value;
  };
}
