// The package as a consumer gets it (issues 8 and 23): `npm pack` of pkg/, installed from the
// tarball into a fresh app in a temporary folder, and driven in headless Chromium:
// - a Vite + React app, bundled by `vite build` without plugins and type-checked with
//   `tsc --noEmit --strict`;
// - one small app per other bundler, each built with its community's recipe for the wasm that
//   the package names with `new URL(..., import.meta.url)` (tests/e2e/consumer/bundlers/: Rollup
//   with @web/rollup-plugin-import-meta-assets, esbuild with its file loader and
//   `init({ module_or_path })`, webpack 5 and Parcel 2 with no config), and an esbuild bundle of
//   `coworkkit/inline`, which needs no recipe;
// - a plain page that imports the installed files as ES modules, no bundler;
// - coworkkit/server in node: in the browser app, which installed no @simplewebauthn/server (it
//   says missing_dependency), and in a small server app that did (tests/e2e/consumer/server-app:
//   it refuses a bad receipt with a code, and its types check under tsc with node-redis's
//   client); no browser bundle holds it, and a browser build cannot resolve it.
// One `npm install` brings every browser app's tools, a second the server app's. Needs
// ./scripts/build-pkg first.
// COWORKKIT_KEEP_CONSUMER=1 keeps the temporary folder for a look.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startServer } from "../../scripts/serve.mjs";
import { launchBrowser } from "./drivers/index.mjs";
import { ENGINE, openFixture, clickPart, waitCard, waitFor, click, sleep, TEST_TIMEOUT, waitArmed, confirmCard } from "./harness.mjs";

// What this file checks is the package and the bundlers, not an engine: the SDK's behaviour in
// each engine is the other suites' job, so the apps are built and driven in Chromium only
// (installing and building them takes a minute or more; three times would buy nothing).
if (ENGINE !== "chromium") {
  test(`the consumer test (npm pack, Vite + React, Rollup, esbuild, webpack and Parcel builds, tsc) in ${ENGINE}`, {
    skip: `${ENGINE}: the package and its bundling are engine-independent; the consumer apps run in Chromium only (the SDK's behaviour in ${ENGINE} is covered by every other suite)`,
  }, () => {});
}

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
const PKG = resolve(ROOT, process.env.COWORKKIT_PKG ?? "pkg"); // another built copy: COWORKKIT_PKG=dir
const FIXTURES = join(ROOT, "tests/e2e/consumer");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
// Exact versions: the consumer is reproducible and `--prefer-offline` hits the npm cache.
// README's install table names the bundlers' versions from here.
const VERSIONS = {
  react: "19.3.1", "react-dom": "19.3.1",
  vite: "8.4.0", typescript: "7.0.2", "@types/react": "19.3.3", "@types/react-dom": "19.3.0",
  rollup: "4.68.9", "@rollup/plugin-node-resolve": "16.0.3", "@web/rollup-plugin-import-meta-assets": "2.3.3",
  esbuild: "0.28.2", webpack: "5.113.0", "webpack-cli": "7.3.1", parcel: "2.16.4",
};

/** The server app's dependencies beside coworkkit (the versions tests/e2e pins). */
const SERVER_VERSIONS = { "@simplewebauthn/server": "14.0.3", redis: "5.12.4" };
const SERVER_TYPES_NODE = "26.6.6";

/**
 * The apps of tests/e2e/consumer/bundlers/: a folder each, whose entry instantiates the wasm the
 * way its bundler's recipe says and hands the rest to story.js. `args` is the build command's,
 * run in that folder with the app's node_modules/.bin; the output goes to its dist/ (with the
 * folder's index.html copied in when the bundler does not build the page), which is all the
 * server serves of that app. `wasm` says whether the page should fetch a wasm emitted into
 * dist/ (false: it fetches none).
 */
const BUNDLERS = {
  rollup: {
    title: `Rollup ${VERSIONS.rollup} + @web/rollup-plugin-import-meta-assets`,
    bin: "rollup", args: ["-c", "rollup.config.mjs", "--silent"], copyHtml: true, wasm: true,
  },
  esbuild: {
    title: `esbuild ${VERSIONS.esbuild}, --loader:.wasm=file + init({ module_or_path })`,
    bin: "esbuild", args: ["main.js", "--bundle", "--format=esm", "--loader:.wasm=file", "--outdir=dist", "--log-level=warning"],
    copyHtml: true, wasm: true,
  },
  webpack: {
    title: `webpack ${VERSIONS.webpack}, no config`,
    bin: "webpack", args: ["--mode", "production", "--no-stats"], copyHtml: true, wasm: true,
  },
  parcel: {
    title: `Parcel ${VERSIONS.parcel}, no config`,
    bin: "parcel", args: ["build", "index.html", "--dist-dir", "dist", "--public-url", "./", "--no-autoinstall", "--log-level", "warn"],
    copyHtml: false, wasm: true,
  },
  inline: {
    title: `coworkkit/inline, esbuild ${VERSIONS.esbuild} with no loader`,
    bin: "esbuild", args: ["main.js", "--bundle", "--format=esm", "--outdir=dist", "--log-level=warning"],
    copyHtml: true, wasm: false,
  },
};

const exec = promisify(execFile);
/** Runs a command, failing with its output; returns stdout. */
async function sh(cmd, args, options = {}) {
  try {
    const { stdout } = await exec(cmd, args, { maxBuffer: 64 << 20, ...options, env: { ...process.env, ...options.env } });
    return stdout;
  } catch (e) {
    throw new Error(`${cmd} ${args.join(" ")} failed:\n${e.stdout ?? ""}\n${e.stderr ?? e.message}`);
  }
}

let tmp, app, serverApp, tarball, server, browser;
const timings = {};
/** Each bundler app's build: `{ ok: true }`, or `{ ok: false, error }` for its own test to report. */
const bundled = {};
async function timed(name, fn) {
  const start = Date.now();
  try { return await fn(); } finally { timings[name] = Date.now() - start; }
}

before(async () => {
  if (ENGINE !== "chromium") return;
  assert.ok(existsSync(join(PKG, "package.json")), "pkg/ is missing: run ./scripts/build-pkg first");
  tmp = mkdtempSync(join(tmpdir(), "coworkkit-consumer-"));
  app = join(tmp, "app");
  const packed = await timed("npm pack", () =>
    sh("npm", ["pack", PKG, "--pack-destination", tmp, "--json", "--loglevel=error"]));
  tarball = join(tmp, JSON.parse(packed)[0].filename);

  cpSync(join(FIXTURES, "react-app"), app, { recursive: true });
  cpSync(join(FIXTURES, "bundlers"), join(app, "bundlers"), { recursive: true });
  const { react, "react-dom": reactDom, ...dev } = VERSIONS;
  writeFileSync(join(app, "package.json"), JSON.stringify({
    name: "coworkkit-consumer", private: true, type: "module",
    dependencies: { coworkkit: `file:${tarball}`, react, "react-dom": reactDom },
    devDependencies: dev,
  }, null, 2));
  await timed("npm install", () => sh("npm", [
    "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", "--no-update-notifier",
  ], { cwd: app }));
  // The server app: coworkkit with its optional peer, and node-redis for redisNonces.
  serverApp = join(tmp, "server-app");
  cpSync(join(FIXTURES, "server-app"), serverApp, { recursive: true });
  writeFileSync(join(serverApp, "package.json"), JSON.stringify({
    name: "coworkkit-consumer-server", private: true, type: "module",
    dependencies: { coworkkit: `file:${tarball}`, ...SERVER_VERSIONS },
    devDependencies: { typescript: VERSIONS.typescript, "@types/node": SERVER_TYPES_NODE },
  }, null, 2));
  await timed("npm install (server app)", () => sh("npm", [
    "install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error", "--no-update-notifier",
  ], { cwd: serverApp }));

  // Production React, and development React (where StrictMode double-mounts) under /dev/.
  const vite = join(app, "node_modules/.bin/vite");
  // Two lanes side by side (two cores): Vite's two builds, one after the other (Vite 8 refuses a
  // second build of the same project while one runs), and the other bundlers' apps in turn.
  const viteLane = async () => {
    await timed("vite build", () =>
      sh(vite, ["build", "--logLevel", "warn"], { cwd: app, env: { NODE_ENV: "production" } }));
    await timed("vite build (dev)", () =>
      sh(vite, ["build", "--logLevel", "warn", "--base", "/dev/", "--outDir", "dist-dev"],
        { cwd: app, env: { NODE_ENV: "development" } }));
  };
  const bundlersLane = async () => {
    for (const [name, { bin, args, copyHtml }] of Object.entries(BUNDLERS)) {
      const dir = join(app, "bundlers", name);
      bundled[name] = await timed(`${name} build`, () => sh(join(app, "node_modules/.bin", bin), args, { cwd: dir, env: { NODE_ENV: "production" } }))
        .then(() => { if (copyHtml) cpSync(join(dir, "index.html"), join(dir, "dist/index.html")); })
        .then(() => ({ ok: true }), (error) => ({ ok: false, error }));
    }
  };
  await timed("builds", () => Promise.all([viteLane(), bundlersLane()]));

  server = await startServer({
    mounts: [
      ["/plain/", FIXTURES],
      ["/coworkkit/", join(app, "node_modules/coworkkit")],
      ["/dev/", join(app, "dist-dev")],
      ...Object.keys(BUNDLERS).map((name) => [`/${name}/`, join(app, "bundlers", name, "dist")]),
      ["/", join(app, "dist")],
    ],
  });
  // With WebMCP, so that useModelContext meets Chromium's own document.modelContext.
  browser = await launchBrowser("chromium", { args: ["--enable-features=WebMCP"] });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (tmp && !process.env.COWORKKIT_KEEP_CONSUMER) rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  if (ENGINE === "chromium") console.log(`# consumer timings (ms): ${JSON.stringify(timings)}`);
});

const env = () => ({ url: server.url, browser });
/** The tests below run in Chromium only (see the top of the file). */
/** A test of this file (Chromium only), with the suite's time limit (harness.mjs). */
const chromiumTest = ENGINE === "chromium" ? (name, fn) => test(name, { timeout: TEST_TIMEOUT }, fn) : () => {};

chromiumTest("the tarball holds exactly the files of `files`, and its .d.ts have no `any` in public types", async () => {
  const all = (await sh("tar", ["-tzf", tarball])).trim().split("\n").map((f) => f.replace(/^package\//, "")).sort();
  // The JS modules of src/js/ (bound in src/web/js.rs) are bundled into coworkkit.js: no
  // snippets/ directory ships.
  assert.deepEqual(all, [
    "LICENSE-APACHE", "LICENSE-MIT", "README.md", "coworkkit.d.ts", "coworkkit.js", "coworkkit_bg.wasm",
    "inline.d.ts", "inline.js", "otel.d.ts", "otel.js", "package.json", "react.d.ts", "react.js", "server.d.ts", "server.js",
    "testing.d.ts", "testing.js",
  ]);
  const installed = join(app, "node_modules/coworkkit");
  const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  // The shipped README links only to anchors and absolute URLs: on the npm page nothing else
  // resolves. Its repository links go where package.json's repository points.
  const shippedReadme = readFileSync(join(installed, "README.md"), "utf8").replace(/^\s*```[\s\S]*?^\s*```/gm, "");
  const targets = [...shippedReadme.matchAll(/\]\(([^)\s]+)\)/g)].map(([, t]) => t);
  assert.deepEqual(targets.filter((t) => !/^(#|https:|mailto:)/.test(t)), [], "no relative link in the shipped README");
  const repository = manifest.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");
  assert.ok(targets.includes(`${repository}/blob/HEAD/SECURITY.md`), `SECURITY.md linked at ${repository}`);
  assert.deepEqual(Object.keys(manifest.exports["./react"]), ["types", "import", "default"]);
  assert.deepEqual(Object.keys(manifest.exports["./inline"]), ["types", "import", "default"]);
  assert.deepEqual(Object.keys(manifest.exports["./otel"]), ["types", "import", "default"]);
  assert.equal(manifest.peerDependenciesMeta["@opentelemetry/api"].optional, true);
  assert.equal(manifest.peerDependenciesMeta.react.optional, true);
  // coworkkit/server: for node only (no browser condition, no default), its peer optional.
  assert.deepEqual(manifest.exports["./server"], { types: "./server.d.ts", node: "./server.js" });
  assert.equal(manifest.peerDependenciesMeta["@simplewebauthn/server"].optional, true);
  // coworkkit/testing: for node only too (it drives the browser from the test's side).
  assert.deepEqual(manifest.exports["./testing"], { types: "./testing.d.ts", node: "./testing.js" });

  // wasm-bindgen's only `any`s are the raw wasm exports listed in `interface InitOutput` (what
  // `init()` resolves to: ABI functions such as `coworkkit_invoke: (a: number, b: any) => any`,
  // never meant to be called; scripts/short-imports.mjs names the closure entry points `$0`,
  // `$1`, …). They are allowed there and nowhere else.
  for (const file of ["coworkkit.d.ts", "react.d.ts", "inline.d.ts", "otel.d.ts", "server.d.ts", "testing.d.ts"]) {
    let inInitOutput = false;
    const offending = [];
    readFileSync(join(installed, file), "utf8").split("\n").forEach((line, i) => {
      if (/^export interface InitOutput \{/.test(line)) inInitOutput = true;
      const code = line.replace(/\/\/.*$|\/\*.*?\*\/|^\s*\*.*$/g, "");
      const rawExport = /^\s*readonly (?:[A-Za-z0-9_]+|\$\d+): \(.*\) => .*;$/.test(line);
      if (/\bany\b/.test(code) && !(inInitOutput && rawExport)) offending.push(`${file}:${i + 1}: ${line.trim()}`);
      if (inInitOutput && /^\}/.test(line)) inInitOutput = false;
    });
    assert.deepEqual(offending, [], `\`any\` in public types of ${file}`);
  }
});

chromiumTest("tsc --noEmit --strict passes on a usage file; a wrong control level is a type error", async () => {
  const usage = readFileSync(join(app, "src/usage.ts"), "utf8");
  assert.ok((usage.match(/@ts-expect-error "medium"/g) ?? []).length >= 5, "the usage file checks wrong levels");
  // An unused @ts-expect-error is itself an error, so a passing run proves each one fired.
  await timed("tsc", () => sh(join(app, "node_modules/.bin/tsc"), ["--noEmit", "--strict", "-p", "tsconfig.json"], { cwd: app }));
});

chromiumTest("the README's npm quickstarts, as written, type-check under strict and exactOptionalPropertyTypes and bundle", async () => {
  const dir = join(app, "quickstart");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "App.tsx"), readmeBlock("tsx", "readme-quickstart-react"));
  writeFileSync(join(dir, "main.js"), readmeBlock("js", "readme-quickstart-esm"));
  writeFileSync(join(dir, "entry.tsx"), 'import { createRoot } from "react-dom/client";\nimport App from "./App";\ncreateRoot(document.body).render(<App />);\n');
  writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      target: "ES2022", module: "ESNext", moduleResolution: "bundler", lib: ["ES2022", "DOM"], types: [],
      jsx: "react-jsx", strict: true, exactOptionalPropertyTypes: true, allowJs: true, checkJs: true,
      noEmit: true, skipLibCheck: false,
    },
    files: ["App.tsx", "main.js", "entry.tsx"],
  }));
  await timed("tsc (quickstarts)", () => sh(join(app, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], { cwd: dir }));
  for (const entry of ["entry.tsx", "main.js"]) {
    await sh(join(app, "node_modules/.bin/esbuild"), [entry, "--bundle", "--format=esm", "--jsx=automatic", "--loader:.wasm=file",
      `--outdir=dist-${entry.split(".")[0]}`, "--log-level=warning"], { cwd: dir, env: { NODE_ENV: "production" } });
    const out = readFileSync(join(dir, `dist-${entry.split(".")[0]}`, entry.replace(/\.tsx$/, ".js")), "utf8");
    assert.ok(out.includes("deleteProject"), `${entry}'s bundle holds the app`);
  }
});

chromiumTest("the README's on-demand app (Vite + React.lazy): its first load holds no coworkkit, and after the assistant opens the card works", async () => {
  const dir = join(app, "lazy");
  cpSync(join(FIXTURES, "lazy-app"), dir, { recursive: true });
  mkdirSync(join(dir, "src"), { recursive: true });
  writeFileSync(join(dir, "src/main.jsx"), readmeBlock("jsx", "readme-lazy-main"));
  writeFileSync(join(dir, "src/Assistant.jsx"), readmeBlock("jsx", "readme-lazy-assistant"));
  // Built under the app's dist/ (the server's "/"), at /lazy/.
  const out = join(app, "dist", "lazy");
  await timed("vite build (lazy)", () => sh(join(app, "node_modules/.bin/vite"), ["build", "--logLevel", "warn", "--base", "/lazy/",
    "--outDir", out, "--emptyOutDir"], { cwd: dir, env: { NODE_ENV: "production" } }));
  // What the first load fetches: index.html's script and the modules it preloads.
  const html = readFileSync(join(out, "index.html"), "utf8");
  const first = [...html.matchAll(/(?:src|href)="\/lazy\/(assets\/[^"]+\.js)"/g)].map(([, f]) => f);
  assert.ok(first.length >= 1, html);
  const MARKERS = ["coworkkit_bg", "data-coworkkit", "CoworkkitProvider", "needs_user_activation"];
  for (const file of first) {
    const text = readFileSync(join(out, file), "utf8");
    for (const marker of MARKERS) assert.ok(!text.includes(marker), `${file} (first load) holds ${marker}`);
  }
  const all = readdirSync(join(out, "assets")).filter((f) => f.endsWith(".js"));
  const later = all.filter((f) => !first.includes(`assets/${f}`)).map((f) => readFileSync(join(out, "assets", f), "utf8")).join("");
  assert.ok(later.includes("coworkkit_bg") && later.includes("needs_user_activation"), "the assistant's chunks hold coworkkit");

  const p = await browser.newPage({});
  const requests = [];
  p.page.on("request", (r) => requests.push(new URL(r.url()).pathname));
  try {
    await p.goto(`${server.url}lazy/`);
    await waitFor(p, () => document.querySelector("#open") !== null, undefined, 10000);
    await sleep(300);
    const before = requests.splice(0);
    assert.deepEqual(before.filter((r) => /\.wasm$/.test(r)), [], "no wasm before the assistant opens");
    assert.deepEqual(before.filter((r) => r.endsWith(".js")).map((r) => r.replace("/lazy/", "")).sort(), [...first].sort(), "only the first chunk's modules");
    await click(p, "#open");
    await waitFor(p, () => document.querySelector("#ask")?.disabled === false, undefined, 10000);
    assert.ok(requests.some((r) => /coworkkit_bg.*\.wasm$/.test(r)), `the wasm came with the assistant: ${requests}`);
    await click(p, "#ask");
    const shown = await confirmCard(p);
    assert.equal(shown.summary, "Delete p1?");
    await waitFor(p, () => document.querySelector("#done")?.textContent === "deleted p1");
    assert.deepEqual(p.problems, []);
  } finally {
    await p.close();
  }
});

chromiumTest("vite build emits the wasm as an asset with no plugin and no config", () => {
  const assets = readdirSync(join(app, "dist/assets"));
  const wasm = assets.find((f) => /^coworkkit_bg-.*\.wasm$/.test(f));
  assert.ok(wasm, `no wasm asset in ${assets}`);
  const js = assets.filter((f) => f.endsWith(".js")).map((f) => readFileSync(join(app, "dist/assets", f), "utf8")).join("");
  assert.ok(js.includes(wasm), "the bundle loads the emitted wasm by its hashed name");
});

/** The React app's whole story; `strict` = development React, where StrictMode double-mounts. */
async function reactStory(path, strict) {
  const page = await openFixture(env(), path);
    const value = (expr) => page.evaluate(expr);
  const count = (list, name) => page.evaluate(([l, n]) => window[l].filter((x) => x === n).length, [list, name]);
  const text = (sel) => page.evaluate((s) => document.querySelector(s)?.textContent ?? null, sel);
  const until = async (fn, what) => {
    for (const end = Date.now() + 5000; Date.now() < end; await sleep(20)) if (await fn()) return;
    throw new Error(`timed out waiting for ${what}`);
  };

  // A module-level defineAction is bound to the provider's instance.
  const ping = await value(() => window.ck.invoke({ name: "ping" }));
  assert.equal(ping.gate, "fired");
  assert.equal(ping.result, "pong");

  // Mounting registers the action; StrictMode's mount/unmount/mount leaves one live registration.
  await click(page, "#mount");
  await waitFor(page, () => document.querySelector("#danger"));
  assert.equal(await count("registrations", "deleteProject"), strict ? 2 : 1);
  assert.equal(await count("unregistrations", "deleteProject"), strict ? 1 : 0);

  // New closures and a new `input` literal on every render: no re-registration.
  await click(page, "#bump");
  await click(page, "#bump");
  await until(async () => (await text("#danger")).includes("render 2"), "render 2");
  assert.equal(await count("registrations", "deleteProject"), strict ? 2 : 1);

  await value(() => { window.outcome = null; window.ck.invoke({ name: "deleteProject", args: { projectId: "p1" }, callId: "c1" }).then((o) => { window.outcome = o; }); });
  const card = await waitCard(page, (s) => s.open);
  assert.equal(card.summary, "Delete p1? (render 2)", "the summary of the latest render");
  await until(async () => (await text("#pending")) === "1", "the pending indicator");

  // A render while the card waits (app-driven: the modal card makes the page inert to the
  // mouse): Confirm runs the latest `run`.
  await value(() => document.getElementById("bump").click());
  await until(async () => (await text("#danger")).includes("render 3"), "render 3");
  await waitArmed(page);
  await clickPart(page, "confirm");
  await until(() => value(() => window.outcome !== null), "the outcome");
  const outcome = await value(() => window.outcome);
  assert.equal(outcome.gate, "confirmed");
  assert.equal(outcome.ok, true);
  assert.deepEqual(outcome.result, { deleted: "p1", version: 3 });
  assert.deepEqual(await value(() => window.runs), [{ projectId: "p1", version: 3 }]);
  await until(async () => (await text("#pending")) === "0", "the indicator to clear");
  const record = await value(() => window.records.find((r) => r.action === "deleteProject"));
  assert.equal(record.gate, "confirmed");

  // Unmounting unregisters: the agent's next call finds no such action.
  await click(page, "#unmount");
  await waitFor(page, () => !document.querySelector("#danger"));
  assert.equal(await count("unregistrations", "deleteProject"), strict ? 2 : 1);
  const gone = await value(() => window.ck.invoke({ name: "deleteProject", args: { projectId: "p1" } }));
  assert.equal(gone.gate, "rejected");
  assert.equal(gone.error.code, "unknown_action");

  // Mounted again (no duplicate_action), then unmounted while its card waits: the card's call
  // is cancelled and the indicator clears.
  await click(page, "#mount");
  await waitFor(page, () => !!document.querySelector("#danger"));
  await value(() => { window.outcome = null; window.ck.invoke({ name: "deleteProject", args: { projectId: "p2" } }).then((o) => { window.outcome = o; }); });
  await waitCard(page, (s) => s.open);
  await until(async () => (await text("#pending")) === "1", "the pending indicator");
  // The modal card makes the page inert to the mouse; the app itself unmounts the component.
  await value(() => document.getElementById("unmount").click());
  await until(() => value(() => window.outcome !== null), "the cancelled outcome");
  assert.equal((await value(() => window.outcome)).gate, "cancelled");
  await until(async () => (await text("#pending")) === "0", "the indicator to clear");

  // useGrants (SPEC §12): a grant made in a real click, used, revoked.
  await click(page, "#allow");
  await until(async () => (await text("#grants")) === "archive:0", "the grant in the hook");
  assert.equal((await value(() => window.ck.invoke({ name: "archive", args: {} }))).gate, "fired");
  await until(async () => (await text("#grants")) === "archive:1", "the grant's use in the hook");
  await value(() => window.ck.revokeGrant(window.granted.id));
  await until(async () => (await text("#grants")) === "", "the hook to clear");

  // One instance for the provider's life, disposed when the provider unmounts.
  assert.equal(await value(() => window.instances.size), 1);
  await click(page, "#drop-provider");
  await until(() => value(async () => (await window.ck.invoke({ name: "ping" })).gate === "cancelled"), "the instance to be disposed");
  assert.deepEqual(page.problems, []);
  await page.close();
}

chromiumTest("Vite + React (production build): useAction's hard card, trusted Confirm, unmount unregisters", async () => {
  await reactStory("", false);
});

chromiumTest("Vite + React (development build): StrictMode's double mount does not double-register", async () => {
  await reactStory("dev/", true);
});

/**
 * useModelContext against Chromium's own document.modelContext: the provider's actions become
 * the browser agent's tools for the component's lifetime, actions mounted later join, a swap of
 * one exposing component for another in the same commit and StrictMode's double mount leave
 * each tool registered once (the browser refuses a second registration of a name, which would
 * show as an error state and a console.error), and unmounting removes them.
 */
async function modelContextStory(path) {
  const page = await openFixture(env(), path);
  const names = () => page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name));
  const state = () => page.evaluate(() => document.querySelector("#mc-state")?.textContent ?? null);
  const until = async (fn, what) => {
    for (const end = Date.now() + 5000; Date.now() < end; await sleep(20)) if (await fn()) return;
    throw new Error(`timed out waiting for ${what}`);
  };
  const exec = (name, input) => page.evaluate(async ([name, input]) => {
    const tool = (await document.modelContext.getTools()).find((t) => t.name === name);
    return JSON.parse(await document.modelContext.executeTool(tool, input));
  }, [name, input]);

  assert.deepEqual(await names(), [], "nothing is exposed before a component asks");
  await click(page, "#expose");
  await until(async () => (await state()) === "ready", "the exposure to be ready");
  assert.deepEqual((await names()).sort(), ["archive", "ping"]);
  await click(page, "#mount");
  await until(async () => (await names()).includes("deleteProject"), "a useAction mounted later to join");
  assert.deepEqual(await exec("ping", {}), { gate: "fired", ok: true, result: "pong" });
  assert.equal(await page.evaluate(() => window.records.at(-1).via), "webmcp");

  // The browser's agent asks for the hard action: a person confirms on the SDK's card.
  await page.evaluate(() => {
    window.mcOutcome = null;
    document.modelContext.getTools().then((tools) => document.modelContext.executeTool(tools.find((t) => t.name === "deleteProject"), { projectId: "p9" }))
      .then((text) => { window.mcOutcome = JSON.parse(text); });
  });
  await waitCard(page, (s) => s.open);
  await waitArmed(page);
  await clickPart(page, "confirm");
  await until(() => page.evaluate(() => window.mcOutcome !== null), "the browser agent's outcome");
  assert.deepEqual(await page.evaluate(() => [window.mcOutcome.gate, window.mcOutcome.result.deleted]), ["confirmed", "p9"]);

  // One exposing component for another in one commit: still every tool, once, and no refusal.
  await click(page, "#swap-exposer");
  await until(async () => (await state()) === "too ready", "the second component's exposure");
  assert.deepEqual((await names()).sort(), ["archive", "deleteProject", "ping"]);
  await click(page, "#unmount");
  await until(async () => !(await names()).includes("deleteProject"), "the unmounted action to leave");
  await click(page, "#unexpose");
  await until(async () => (await names()).length === 0, "every tool to leave with the component");
  assert.deepEqual(page.problems, []);
  await page.close();
}

chromiumTest("Vite + React (production build): useModelContext hands the actions to Chromium's WebMCP for the component's lifetime", async () => {
  await modelContextStory("");
});

chromiumTest("Vite + React (development build): useModelContext under StrictMode registers each tool once", async () => {
  await modelContextStory("dev/");
});

chromiumTest("a plain page imports the installed package as ES modules: init(), then a hard card", async () => {
  const page = await openFixture(env(), "plain/plain.html");
  await page.evaluate(() => { window.outcome = null; window.ck.invoke({ name: "emptyTrash" }).then((o) => { window.outcome = o; }); });
  const card = await waitCard(page, (s) => s.open);
  assert.equal(card.summary, "Empty the trash? 3 items go for good.");
  await waitArmed(page);
  await clickPart(page, "confirm");
  await waitFor(page, () => window.outcome !== null);
  const outcome = await page.evaluate(() => window.outcome);
  assert.equal(outcome.gate, "confirmed");
  assert.deepEqual(outcome.result, { emptied: 3 });
  assert.deepEqual(page.problems, []);
  await page.close();
});

/** The body of README's fenced block whose info string is `lang tag`. */
function readmeBlock(lang, tag) {
  const m = README.match(new RegExp("```" + lang + " " + tag + "\\n([\\s\\S]*?)```"));
  assert.ok(m, `README.md has a \`\`\`${lang} ${tag} block`);
  return m[1];
}

chromiumTest("README's bundler table names the versions checked here, and its recipes are the ones built here", () => {
  const section = README.slice(README.indexOf("## Bundlers and TypeScript"), README.indexOf("## Security"));
  const labels = {
    vite: "Vite", rollup: "Rollup", "@rollup/plugin-node-resolve": "`@rollup/plugin-node-resolve`",
    "@web/rollup-plugin-import-meta-assets": "`@web/rollup-plugin-import-meta-assets`", esbuild: "esbuild",
    webpack: "webpack", "webpack-cli": "`webpack-cli`", parcel: "Parcel", typescript: "TypeScript", react: "React",
  };
  for (const [pkg, label] of Object.entries(labels)) {
    assert.ok(section.includes(`${label} ${VERSIONS[pkg]}`), `README's bundler table says "${label} ${VERSIONS[pkg]}"`);
  }
  const bundlers = join(FIXTURES, "bundlers");
  assert.equal(readmeBlock("js", "readme-rollup"), readFileSync(join(bundlers, "rollup/rollup.config.mjs"), "utf8"));
  const esbuildApp = readFileSync(join(bundlers, "esbuild/main.js"), "utf8");
  for (const line of readmeBlock("js", "readme-esbuild").split("\n").filter(Boolean)) {
    const code = line.replace(/^await /, "").replace(/;$/, "");
    assert.ok(esbuildApp.includes(code), `the esbuild app has README's \`${code}\``);
  }
  const args = BUNDLERS.esbuild.args.filter((a) => !a.startsWith("--log-level"));
  assert.equal(readmeBlock("sh", "readme-esbuild-cli").trim(), ["esbuild", ...args].join(" "));
});

chromiumTest("coworkkit/otel from the tarball: imports in node with no @opentelemetry/api installed, bundles for a browser on its own, and is in no bundle that does not import it", async () => {
  assert.equal(existsSync(join(app, "node_modules/@opentelemetry/api")), false, "the optional peer is not installed");
  const script = `import { recordSpans } from "coworkkit/otel";
const spans = [];
const tracer = { startSpan: (name, options) => { const s = { name, options }; spans.push(s); return { setStatus: (x) => { s.status = x; }, end: (t) => { s.end = t; } }; } };
recordSpans({ tracer })({ callId: "c1", action: "getTask", control: "open", gate: "rejected", assurance: "none", via: "invoke",
  outcome: { status: "not_run" }, reason: "invalid_args", args: {}, startedAt: 1, settledAt: 2 });
console.log(JSON.stringify(spans));`;
  writeFileSync(join(app, "check-otel.mjs"), script);
  const [span] = JSON.parse(await sh("node", ["check-otel.mjs"], { cwd: app }));
  assert.equal(span.name, "execute_tool getTask");
  assert.deepEqual([span.status, span.end, span.options.attributes["error.type"]], [{ code: 2 }, 2, "invalid_args"]);
  // A browser bundle of it alone: the module resolves through `exports`, and brings nothing else.
  writeFileSync(join(app, "otel-entry.js"), 'import { recordSpans } from "coworkkit/otel";\nwindow.recordSpans = recordSpans;\n');
  await sh(join(app, "node_modules/.bin/esbuild"), ["otel-entry.js", "--bundle", "--format=esm", "--outfile=otel-dist/entry.js",
    "--metafile=otel-dist/meta.json", "--log-level=warning"], { cwd: app });
  assert.ok(readFileSync(join(app, "otel-dist/entry.js"), "utf8").includes("execute_tool"));
  const inputs = Object.keys(JSON.parse(readFileSync(join(app, "otel-dist/meta.json"), "utf8")).inputs).sort();
  assert.deepEqual(inputs, ["node_modules/coworkkit/otel.js", "otel-entry.js"], "neither the wasm, its glue nor the OpenTelemetry API");
  // The apps that did not import it hold none of it.
  const outputs = [join(app, "dist"), join(app, "dist-dev"), ...Object.keys(BUNDLERS).map((name) => join(app, "bundlers", name, "dist"))];
  for (const dir of outputs) {
    for (const file of filesUnder(dir).filter((f) => /\.(m?js|html)$/.test(f))) {
      assert.ok(!readFileSync(join(dir, file), "utf8").includes("execute_tool"), `${dir}/${file} holds none of coworkkit/otel`);
    }
  }
});

/** The files under `dir`, as paths relative to it. */
function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

/**
 * A bundler app's whole story: its build passed, its page ran init() and made the instance,
 * an open action fires, a hard one fires on a trusted Confirm on the card the wasm drew,
 * and the wasm came from the bundle's own output (byte for byte the package's), or, for the
 * inline entry, from no request at all.
 */
async function bundlerStory(name) {
  const build = bundled[name];
  assert.ok(build, `${name} was not built`);
  if (!build.ok) throw build.error;
  const dist = join(app, "bundlers", name, "dist");
  const emitted = filesUnder(dist).filter((f) => f.endsWith(".wasm"));

  const page = await browser.newPage();
  await page.goto(`${server.url}${name}/`);
  // A page whose init() failed never gets ready: say what the page saw (a 404, an error).
  await waitFor(page, () => window.ready === true).catch((e) => {
    throw new Error(`${e.message}; the page saw: ${JSON.stringify(page.problems)}`);
  });
  assert.equal(await page.evaluate(() => window.bundler), name);
  const sum = await page.evaluate(() => window.ck.invoke({ name: "add", args: { a: 2, b: 3 } }));
  assert.deepEqual([sum.gate, sum.ok, sum.result], ["fired", true, 5]);

  await page.evaluate(() => { window.outcome = null; window.ck.invoke({ name: "shipOrder" }).then((o) => { window.outcome = o; }); });
  const card = await waitCard(page, (s) => s.open);
  assert.equal(card.summary, `Ship the order? (${name})`);
  await waitArmed(page);
  await clickPart(page, "confirm");
  await waitFor(page, () => window.outcome !== null);
  const outcome = await page.evaluate(() => window.outcome);
  assert.deepEqual([outcome.gate, outcome.ok, outcome.result], ["confirmed", true, { shipped: true }]);

  const fetched = await page.evaluate(() => performance.getEntriesByType("resource")
    .filter((e) => new URL(e.name).pathname.endsWith(".wasm"))
    .map((e) => ({ path: new URL(e.name).pathname, status: e.responseStatus })));
  if (BUNDLERS[name].wasm) {
    // The server maps /<name>/ to dist/ and nothing else of the app: a wasm left in
    // node_modules could not have loaded.
    assert.equal(emitted.length, 1, `one wasm in ${name}'s output: ${emitted}`);
    assert.deepEqual(fetched, [{ path: `/${name}/${emitted[0].split(sep).join("/")}`, status: 200 }]);
    assert.ok(readFileSync(join(dist, emitted[0])).equals(readFileSync(join(app, "node_modules/coworkkit/coworkkit_bg.wasm"))),
      "the emitted wasm is the package's");
  } else {
    assert.deepEqual(emitted, [], "the inline entry's bundle emits no wasm");
    assert.deepEqual(fetched, [], "the inline entry fetches no wasm");
  }
  assert.deepEqual(page.problems, []);
  await page.close();
}

for (const [name, { title, wasm }] of Object.entries(BUNDLERS)) {
  chromiumTest(`${title}: init(), an open call fires, a hard one on a trusted Confirm; ${wasm ? "the wasm comes from the bundle's output" : "no wasm is fetched"}`, async () => {
    await bundlerStory(name);
  });
}

/** A string of coworkkit/server's that no browser module of the package holds: its Redis key prefix. */
const SERVER_MARKER = "coworkkit:nonce:";

chromiumTest("coworkkit/server in node: importable from the tarball; says missing_dependency without @simplewebauthn/server, and refuses a bad receipt with a code beside it", async () => {
  // The browser app installed coworkkit alone: its optional peer is not there.
  assert.equal(existsSync(join(app, "node_modules/@simplewebauthn/server")), false, "a browser-only app installs no @simplewebauthn/server");
  cpSync(join(FIXTURES, "server-app/check.mjs"), join(app, "check-server.mjs"));
  const alone = JSON.parse(await sh("node", ["check-server.mjs"], { cwd: app }));
  assert.deepEqual(alone.exports, ["function", "function", "function"]);
  assert.equal(alone.code, "missing_dependency", alone.message);
  assert.match(alone.message, /^coworkkit: .*npm install @simplewebauthn\/server/);

  const beside = JSON.parse(await sh("node", ["check.mjs"], { cwd: serverApp }));
  assert.deepEqual(beside.exports, ["function", "function", "function"]);
  assert.equal(beside.code, "bad_statement", beside.message);
  assert.match(beside.message, /^coworkkit: the statement is not canonical JSON/);

  // Its types, as a TypeScript server uses them (each @ts-expect-error must fire).
  await timed("tsc (server app)", () => sh(join(serverApp, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], { cwd: serverApp }));
});

chromiumTest("no browser bundle holds coworkkit/server or coworkkit/testing, and a browser build cannot import them; node imports coworkkit/testing", async () => {
  const installed = readFileSync(join(app, "node_modules/coworkkit/server.js"), "utf8");
  assert.ok(installed.includes(SERVER_MARKER), `server.js holds the marker ${SERVER_MARKER}`);
  for (const file of ["coworkkit.js", "inline.js", "react.js"]) {
    assert.ok(!readFileSync(join(app, "node_modules/coworkkit", file), "utf8").includes(SERVER_MARKER), `${file} does not`);
  }
  const outputs = [join(app, "dist"), join(app, "dist-dev"), ...Object.keys(BUNDLERS).map((name) => join(app, "bundlers", name, "dist"))];
  let scanned = 0;
  for (const dir of outputs) {
    for (const file of filesUnder(dir).filter((f) => /\.(m?js|html)$/.test(f))) {
      scanned++;
      assert.ok(!readFileSync(join(dir, file), "utf8").includes(SERVER_MARKER), `${relative(app, join(dir, file))} holds coworkkit/server`);
    }
  }
  assert.ok(scanned >= Object.keys(BUNDLERS).length + 2, `scanned ${scanned} bundle files`);
  // A browser build that asks for it: the export has no browser condition, so it does not resolve.
  writeFileSync(join(app, "wants-server.js"), 'import { verifyReceipt } from "coworkkit/server";\nconsole.log(verifyReceipt);\n');
  await assert.rejects(sh(join(app, "node_modules/.bin/esbuild"), ["wants-server.js", "--bundle", "--platform=browser", "--format=esm", "--outfile=wants-server.out.js", "--log-level=error"], { cwd: app }),
    /coworkkit\/server|"\.\/server"/);
  // coworkkit/testing the same: in no browser bundle (its error code marks it), and a browser
  // build that asks for it does not resolve; in node it imports.
  const TESTING_MARKER = "unsupported_page";
  assert.ok(readFileSync(join(app, "node_modules/coworkkit/testing.js"), "utf8").includes(TESTING_MARKER));
  for (const dir of outputs) {
    for (const file of filesUnder(dir).filter((f) => /\.(m?js|html)$/.test(f))) {
      assert.ok(!readFileSync(join(dir, file), "utf8").includes(TESTING_MARKER), `${relative(app, join(dir, file))} holds coworkkit/testing`);
    }
  }
  writeFileSync(join(app, "wants-testing.js"), 'import { confirmCard } from "coworkkit/testing";\nconsole.log(confirmCard);\n');
  await assert.rejects(sh(join(app, "node_modules/.bin/esbuild"), ["wants-testing.js", "--bundle", "--platform=browser", "--format=esm", "--outfile=wants-testing.out.js", "--log-level=error"], { cwd: app }),
    /coworkkit\/testing|"\.\/testing"/);
  writeFileSync(join(app, "check-testing.mjs"), 'import * as t from "coworkkit/testing";\nconsole.log(JSON.stringify(Object.keys(t).sort().map((k) => [k, typeof t[k]])));\n');
  assert.deepEqual(JSON.parse(await sh("node", ["check-testing.mjs"], { cwd: app })),
    [["cancelCard", "function"], ["confirmCard", "function"], ["readCard", "function"]]);
});
