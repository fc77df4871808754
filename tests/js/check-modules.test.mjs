// The self-test of scripts/check-modules.mjs (the test command's "modules" step): each test
// writes a small crate into a temp dir and runs the script on it, as scripts/test does on the
// repository, reading its exit code and what it prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const SCRIPT = new URL("../../scripts/check-modules.mjs", import.meta.url).pathname;

/** A temp repository root whose src/ holds `files` ({ "core/a.rs": "…" }). */
function crate(files) {
  const root = mkdtempSync(join(tmpdir(), "check-modules-"));
  for (const [path, text] of Object.entries(files)) {
    const full = join(root, "src", path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return root;
}

function run(root) {
  const r = spawnSync(process.execPath, [SCRIPT, root], { encoding: "utf8" });
  return { status: r.status, out: r.stdout + r.stderr };
}

// Two rooms as this crate has them: lib.rs declares core and web, each mod.rs its files.
const ROOMS = {
  "lib.rs": "pub mod core;\npub mod web;\n",
  "core/mod.rs": "pub mod engine;\npub mod error;\n",
  "core/error.rs": "pub struct Error;\n",
  "core/engine.rs": "use super::error::Error;\npub fn run() -> Result<(), Error> { Ok(()) }\n",
  "web/mod.rs": "mod api;\nmod instance;\nmod effects;\n",
  "web/api.rs": "use super::instance::Instance;\npub fn make() -> Instance { Instance }\n",
  "web/instance.rs": "use crate::core::engine;\npub struct Instance;\npub fn go() { engine::run().ok(); }\n",
  "web/effects.rs": "use crate::core::error::Error;\npub fn fail() -> Error { Error }\n",
};

test("a clean tree passes and says so", () => {
  const { status, out } = run(crate(ROOMS));
  assert.equal(status, 0, out);
  assert.match(out, /check-modules: ok \(8 files, 4 arrows/);
});

test("a circle planted between two files fails, printed as a -> b -> a", () => {
  const root = crate({
    ...ROOMS,
    // effects takes the instance back, as src/web did before issue 19.
    "web/effects.rs": "use super::instance::Instance;\npub fn perform(_: &Instance) {}\n",
    "web/instance.rs": "pub struct Instance;\nimpl Instance { fn drain(&self) { super::effects::perform(self) } }\n",
  });
  const { status, out } = run(root);
  assert.equal(status, 1, out);
  assert.match(out, /circle: src\/web\/effects\.rs -> src\/web\/instance\.rs -> src\/web\/effects\.rs/);
  // Each arrow is shown where it starts, so that the reader knows which line to change.
  assert.match(out, /src\/web\/effects\.rs:1 -> src\/web\/instance\.rs  \(super::instance::Instance\)/);
  assert.match(out, /src\/web\/instance\.rs:2 -> src\/web\/effects\.rs  \(super::effects::perform\)/);
});

test("a circle through three files, one arrow inside a use tree, fails", () => {
  const root = crate({
    ...ROOMS,
    "web/api.rs": "use super::{convert::get, instance::{self, Instance}};\npub fn f() {}\n",
    "web/instance.rs": "use crate::web::effects::*;\npub struct Instance;\n",
    "web/effects.rs": "pub fn g() { crate::web::api::f() }\n",
  });
  const { status, out } = run(root);
  assert.equal(status, 1, out);
  assert.match(out, /circle: src\/web\/api\.rs -> src\/web\/instance\.rs -> src\/web\/effects\.rs -> src\/web\/api\.rs/);
});

test("an arrow from src/core into src/web fails, even without a circle", () => {
  const root = crate({
    ...ROOMS,
    "core/engine.rs": "pub fn run() { let _ = crate::web::effects::fail(); }\n",
  });
  const { status, out } = run(root);
  assert.equal(status, 1, out);
  assert.match(out, /core names web: src\/core\/engine\.rs:1 -> src\/web\/effects\.rs/);
  assert.doesNotMatch(out, /circle/);
});

test("a file of 601 lines of code fails; 600, with comments and blank lines besides, passes", () => {
  const body = (n) => Array.from({ length: n }, (_, k) => `pub const C${k}: u32 = ${k};`).join("\n");
  const padded = `//! A module doc.\n\n${body(600)}\n\n/* a block\n   comment */\n// a line comment\n`;
  const at600 = run(crate({ ...ROOMS, "core/error.rs": `pub struct Error;\n${body(599)}\n` }));
  assert.equal(at600.status, 0, at600.out);
  const paddedRun = run(crate({ ...ROOMS, "core/error.rs": padded.replace("pub const C0", "pub struct Error; pub const C0") }));
  assert.equal(paddedRun.status, 0, paddedRun.out);

  const over = run(crate({ ...ROOMS, "core/error.rs": `pub struct Error;\n${body(600)}\n` }));
  assert.equal(over.status, 1, over.out);
  assert.match(over.out, /over 600 lines of code: src\/core\/error\.rs has 601/);
});

test("comments, doc comments and string literals that mention a path are not arrows", () => {
  const root = crate({
    ...ROOMS,
    "web/effects.rs": [
      "//! Called from [`super::instance::Instance`]; see crate::web::instance.",
      "/// use super::instance::Instance;",
      "/* use super::instance; /* nested: super::instance::x */ still a comment: super::instance::y */",
      "pub const A: &str = \"super::instance::Instance \\\" escaped quote super::instance::q\";",
      "pub const B: &str = r#\"one \" quote, then super::instance::z\"#;",
      "pub const C: char = '\"'; // a quote in a char literal must not open a string: super::instance",
      "pub fn lifetime<'a>(s: &'a str) -> &'a str { s } // super::instance::w",
      "pub fn fail() -> crate::core::error::Error { crate::core::error::Error }",
      // The one real arrow: found, and first found here, on line 9, behind every literal above.
      "pub fn back(_: &super::instance::Instance) {}",
    ].join("\n"),
    "web/instance.rs": "use super::effects::fail;\npub struct Instance;\n",
  });
  const { status, out } = run(root);
  assert.equal(status, 1, out);
  assert.match(out, /src\/web\/effects\.rs:9 -> src\/web\/instance\.rs  \(super::instance::Instance\)/);
});

test("`super` in an inline module and a child module named from its parent resolve as rustc does", () => {
  const root = crate({
    ...ROOMS,
    // Inside `mod tests`, `super` is the file's own module: no arrow, so no circle.
    "web/effects.rs": "pub fn fail() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::effects::fail as again;\n}\n",
    // `super::super` from an inline module of web/instance.rs is web itself, whose child effects is.
    "web/instance.rs": "pub struct Instance;\nmod inner {\n    pub fn f() { super::super::effects::fail() }\n}\n",
    // web/mod.rs naming its child `api` without `crate::` is an arrow into api.rs...
    "web/mod.rs": "mod api;\nmod instance;\nmod effects;\npub fn make() { let _ = api::make(); effects::fail(); }\n",
    // ...and api naming an item of web/mod.rs closes a circle.
    "web/api.rs": "use super::instance::Instance;\npub fn make() -> Instance { let _ = super::make; Instance }\n",
  });
  const { status, out } = run(root);
  assert.equal(status, 1, out);
  assert.match(out, /circle: src\/web\/api\.rs -> src\/web\/mod\.rs -> src\/web\/api\.rs/);
  // Had `super` in effects' `mod tests` been read as web, effects and web/mod.rs would be a
  // circle; the arrow instance -> effects is a plain one.
  assert.doesNotMatch(out, /src\/web\/effects\.rs:\d+ ->/);
  assert.match(out, /src\/web\/mod\.rs:4 -> src\/web\/api\.rs  \(api::make\)/);
  assert.match(out, /circle among 2 files/);
});

test("a missing or empty src/ fails with a message rather than passing on nothing", () => {
  const root = mkdtempSync(join(tmpdir(), "check-modules-"));
  const missing = run(root);
  assert.equal(missing.status, 1);
  assert.match(missing.out, /check-modules: cannot read/);
  mkdirSync(join(root, "src"));
  const empty = run(root);
  assert.equal(empty.status, 1);
  assert.match(empty.out, /check-modules: cannot read .*: no \.rs file found/);
});
