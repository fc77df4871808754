// Shortens the names the wasm imports from the JS glue: the module `./coworkkit_bg.js` becomes
// `a` (each inline snippet module `b`, `c`, …), and each import of `./coworkkit_bg.js`
// (`__wbg_<name>_<16 hex digits>`, `__wbindgen_…`) a one- or two-letter name, in both the wasm
// import section and the glue's import object. These names are wasm-bindgen's internal link
// between the two files (no type or API names them), and much of their length is hex digits
// that do not compress. Exports keep their names: `init()` returns them, typed as `InitOutput`
// in the .d.ts, which this script never edits.
// Usage: node scripts/short-imports.mjs <dir with coworkkit_bg.wasm and coworkkit.js>
// Exits 1, leaving both files as they were, if the glue does not look as expected (a
// wasm-bindgen upgrade that changes its shape fails the build rather than ship mismatched names).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const wasmPath = join(dir, "coworkkit_bg.wasm");
const jsPath = join(dir, "coworkkit.js");
const wasm = readFileSync(wasmPath);
let js = readFileSync(jsPath, "utf8");

const GLUE = "./coworkkit_bg.js";
const SHORT_GLUE = "a";
const fail = (why) => {
  console.error(`short-imports: ${why}`);
  process.exit(1);
};

function uleb(buf, pos) {
  let result = 0, shift = 0, byte;
  do {
    byte = buf[pos++];
    result += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return [result, pos];
}
function encodeUleb(n) {
  const out = [];
  do {
    let byte = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) byte |= 0x80;
    out.push(byte);
  } while (n > 0);
  return Buffer.from(out);
}
const encodeName = (s) => {
  const bytes = Buffer.from(s, "utf8");
  return Buffer.concat([encodeUleb(bytes.length), bytes]);
};
// Short names, valid JS identifiers: a…z A…Z, then two letters.
const LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const shortName = (i) =>
  i < LETTERS.length
    ? LETTERS[i]
    : LETTERS[Math.floor(i / LETTERS.length) - 1] + LETTERS[i % LETTERS.length];

if (wasm.readUInt32LE(0) !== 0x6d736100) fail("not a wasm module");
let pos = 8;
let section = null;
while (pos < wasm.length) {
  const id = wasm[pos];
  const [size, body] = uleb(wasm, pos + 1);
  if (id === 2) {
    section = { start: pos, body, end: body + size };
    break;
  }
  pos = body + size;
}
if (!section) fail("no import section");

/** `buf` with the section `s` given the new `body`. */
const replaceSection = (buf, s, body) =>
  Buffer.concat([buf.subarray(0, s.start), Buffer.from([s.id]), encodeUleb(body.length), body, buf.subarray(s.end)]);

// Rewrite the import section: module and field names change, each entry's description
// (kind and type) is copied as it is.
let [count, p] = uleb(wasm, section.body);
const entries = [];
const renames = new Map();
const snippets = new Map();
/** The functions the wasm imports from each snippet module. */
const snippetFields = new Map();
const SHORT_SNIPPETS = "bcdefgh";
for (let i = 0; i < count; i++) {
  let len;
  [len, p] = uleb(wasm, p);
  const module = wasm.toString("utf8", p, p + len);
  p += len;
  [len, p] = uleb(wasm, p);
  const field = wasm.toString("utf8", p, p + len);
  p += len;
  const descStart = p;
  const kind = wasm[p++];
  if (kind === 0) [, p] = uleb(wasm, p); // function: type index
  else if (kind === 1) { p++; const f = wasm[p++]; [, p] = uleb(wasm, p); if (f & 1) [, p] = uleb(wasm, p); } // table
  else if (kind === 2) { const f = wasm[p++]; [, p] = uleb(wasm, p); if (f & 1) [, p] = uleb(wasm, p); } // memory
  else if (kind === 3) p += 2; // global: type, mutability
  else fail(`import kind ${kind}`);
  let newModule = module, newField = field;
  if (module.startsWith("./snippets/")) {
    // A snippet's functions keep their names (the glue passes the module's namespace).
    if (!snippets.has(module)) snippets.set(module, SHORT_SNIPPETS[snippets.size] ?? fail("too many snippets"));
    newModule = snippets.get(module);
    if (!/^[A-Za-z_$][\w$]*$/.test(field)) fail(`snippet import ${field} is not a plain name`);
    snippetFields.set(module, new Set([...(snippetFields.get(module) ?? []), field]));
  } else if (module === GLUE) {
    newModule = SHORT_GLUE;
    if (/^__wb\w+$/.test(field)) {
      if (!renames.has(field)) renames.set(field, shortName(renames.size));
      newField = renames.get(field);
    }
  }
  entries.push(Buffer.concat([encodeName(newModule), encodeName(newField), wasm.subarray(descStart, p)]));
}
if (p !== section.end) fail("import section did not parse to its end");

// The glue: each renamed import is one key of the import object (`__wbg_…: function`), and
// the module appears once as a key of the object `__wbg_get_imports` returns.
for (const [long, short] of renames) {
  const uses = js.split(long).length - 1;
  if (uses !== 1) fail(`${long} appears ${uses} times in the glue, expected once`);
  const key = new RegExp(`(^|[\\s,{])${long}(\\s*:)`);
  if (!key.test(js)) fail(`${long} is not an object key in the glue`);
  js = js.replace(key, `$1${short}$2`);
}
const moduleKey = `"${GLUE}":`;
if (js.split(moduleKey).length !== 2) fail(`the glue names "${GLUE}" other than once as a key`);
js = js.replace(moduleKey, `"${SHORT_GLUE}":`);

// Each snippet module is a key once per import of it (`"./snippets/…": importN`) and the
// source of `import * as importN from "./snippets/…"`, which stays. The key's value becomes an
// object of the functions the wasm imports (`{ f: importN.f }`).
for (const [module, short] of snippets) {
  const keys = [...js.matchAll(new RegExp(`"${module.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}": (import\\d+)`, "g"))];
  const froms = js.split(`from "${module}"`).length - 1 + js.split(`from '${module}'`).length - 1;
  if (keys.length < 1 || keys.length + froms !== js.split(module).length - 1) {
    fail(`the glue names "${module}" other than as an import source or a key`);
  }
  const fields = [...snippetFields.get(module)];
  for (const [key, namespace] of keys) {
    js = js.replace(key, `"${short}": { ${fields.map((f) => `${f}: ${namespace}.${f}`).join(", ")} }`);
  }
}

const out = replaceSection(wasm, { id: 2, ...section }, Buffer.concat([encodeUleb(count), ...entries]));

writeFileSync(wasmPath, out);
writeFileSync(jsPath, js);
