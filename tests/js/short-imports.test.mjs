// The self-test of scripts/short-imports.mjs (the build step that shortens the names the wasm
// imports from its glue): on a glue of the shape wasm-bindgen writes, both files get the same
// short names; on any shape it does not know, it fails loudly and leaves both files alone.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SCRIPT = new URL("../../scripts/short-imports.mjs", import.meta.url).pathname;

const uleb = (n) => {
  const out = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
const name = (s) => [...uleb(Buffer.byteLength(s)), ...Buffer.from(s)];
const section = (id, body) => [id, ...uleb(body.length), ...body];

/** A wasm module of one `() -> ()` type and these function imports. */
function wasmImporting(imports) {
  const types = section(1, [1, 0x60, 0, 0]);
  const entries = imports.flatMap(([module, field]) => [...name(module), ...name(field), 0, 0]);
  const importSection = section(2, [...uleb(imports.length), ...entries]);
  return Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...types, ...importSection]);
}

/** The names a wasm module imports, in order. */
function importsOf(wasm) {
  let at = 8;
  const read = () => {
    let n = 0, shift = 0, byte;
    do { byte = wasm[at++]; n |= (byte & 0x7f) << shift; shift += 7; } while (byte & 0x80);
    return n;
  };
  const text = () => { const len = read(); const s = wasm.toString("utf8", at, at + len); at += len; return s; };
  while (at < wasm.length) {
    const id = wasm[at++];
    const size = read();
    if (id !== 2) { at += size; continue; }
    const count = read();
    const out = [];
    for (let i = 0; i < count; i++) { out.push([text(), text()]); at += 2; }
    return out;
  }
  return [];
}

const GLUE = `function __wbg_get_imports() {
  const import0 = {
    __proto__: null,
    __wbg_now_0123456789abcdef: function() { return Date.now(); },
    __wbindgen_cast_0000000000000001: function(arg0) { return arg0; },
  };
  return { __proto__: null, "./coworkkit_bg.js": import0, "./snippets/coworkkit-1/src/js/read.js": import1 };
}
import * as import1 from "./snippets/coworkkit-1/src/js/read.js";
`;

/** A package directory holding `wasm` and `glue`; runs the script on it. */
function run(wasm, glue) {
  const dir = mkdtempSync(join(tmpdir(), "short-imports-"));
  writeFileSync(join(dir, "coworkkit_bg.wasm"), wasm);
  writeFileSync(join(dir, "coworkkit.js"), glue);
  let status = 0, stderr = "";
  try {
    execFileSync(process.execPath, [SCRIPT, dir], { stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    status = e.status;
    stderr = String(e.stderr);
  }
  return {
    status, stderr,
    wasm: readFileSync(join(dir, "coworkkit_bg.wasm")),
    glue: readFileSync(join(dir, "coworkkit.js"), "utf8"),
  };
}

const IMPORTS = [
  ["./coworkkit_bg.js", "__wbg_now_0123456789abcdef"],
  ["./coworkkit_bg.js", "__wbindgen_cast_0000000000000001"],
  ["./snippets/coworkkit-1/src/js/read.js", "ckReadCall"],
];

test("the wasm's imports and the glue's import object get the same short names", () => {
  const out = run(wasmImporting(IMPORTS), GLUE);
  assert.equal(out.status, 0, out.stderr);
  assert.deepEqual(importsOf(out.wasm), [["a", "a"], ["a", "b"], ["b", "ckReadCall"]]);
  assert.match(out.glue, /\ba: function\(\) \{ return Date\.now\(\); \}/);
  assert.match(out.glue, /\bb: function\(arg0\)/);
  assert.match(out.glue, /"a": import0/);
  assert.match(out.glue, /"b": \{ ckReadCall: import1\.ckReadCall \}/, "a snippet's imports by name, not its namespace");
  assert.match(out.glue, /from "\.\/snippets\/coworkkit-1\/src\/js\/read\.js"/, "the import itself stays");
  assert.doesNotMatch(out.glue, /0123456789abcdef/);
});

for (const [why, glue] of [
  ["an import the glue names twice", GLUE.replace("return Date.now();", "return __wbg_now_0123456789abcdef;")],
  ["an import that is not an object key", GLUE.replace("__wbg_now_0123456789abcdef: function", "[\"__wbg_now_0123456789abcdef\"]: function")],
  ["a glue module that is not a key", GLUE.replace('"./coworkkit_bg.js": import0', "coworkkitBg: import0")],
  ["a snippet named other than as a key or an import source", GLUE + 'const where = "./snippets/coworkkit-1/src/js/read.js";\n'],
]) {
  test(`an unknown glue shape fails loudly and changes nothing: ${why}`, () => {
    const wasm = wasmImporting(IMPORTS);
    const out = run(wasm, glue);
    assert.equal(out.status, 1);
    assert.match(out.stderr, /^short-imports: /);
    assert.deepEqual(out.wasm, wasm);
    assert.equal(out.glue, glue);
  });
}

test("a file that is not a wasm module fails loudly", () => {
  const out = run(Buffer.from("not wasm"), GLUE);
  assert.equal(out.status, 1);
  assert.match(out.stderr, /not a wasm module/);
});
