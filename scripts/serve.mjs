// A tiny static server for the demo and the end-to-end tests, bound to 127.0.0.1 only.
// Serves www/ at / and the built package (pkg/) at /pkg/, with the MIME types browsers
// insist on (application/wasm for streaming instantiation, text/javascript for modules). The
// demo also gets its own small API (scripts/demo-api.mjs: passkeys, and the receipt check
// before a project is deleted).
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ts": "text/plain; charset=utf-8",
};

/** Maps a URL path to a file under one of the mounts, refusing anything that escapes them. */
function locate(mounts, urlPath) {
  for (const [prefix, dir] of mounts) {
    if (!urlPath.startsWith(prefix)) continue;
    const rel = normalize(decodeURIComponent(urlPath.slice(prefix.length)));
    const file = join(dir, rel);
    if (file === dir || file.startsWith(dir + sep)) return file;
  }
  return null;
}

/**
 * Starts the server; resolves to { url, close }. Port 0 picks a free port. `html(text)`, when
 * given, rewrites every HTML page on its way out (the e2e tests' WebKit driver puts its page
 * tap first in each page this way). `api(req, res)`, when given, sees every request first and
 * resolves to true for one it answered.
 */
export function startServer({ port = 0, mounts, html, api } = {}) {
  mounts ??= [["/pkg/", join(ROOT, "pkg")], ["/", join(ROOT, "www")]];
  const server = createServer(async (req, res) => {
    if (api && (await api(req, res))) return;
    let file = locate(mounts, new URL(req.url, "http://x").pathname);
    try {
      if (file && (await stat(file)).isDirectory()) file = join(file, "index.html");
      let body = file && (await readFile(file));
      if (html && extname(file) === ".html") body = html(body.toString("utf8"));
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "cache-control": "no-store" });
      res.end(body);
    } catch {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not found");
    }
  });
  return new Promise((done) => {
    server.listen(port, "127.0.0.1", () => {
      const url = `http://127.0.0.1:${server.address().port}/`;
      done({ url, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { demoApi } = await import("./demo-api.mjs");
  const port = Number(process.env.PORT ?? process.argv[2] ?? 8080);
  const { url } = await startServer({ port, api: demoApi() });
  console.log(`coworkkit demo: ${url}`);
  console.log(`  with passkeys (WebAuthn wants a domain name): ${url.replace("127.0.0.1", "localhost")}`);
}
