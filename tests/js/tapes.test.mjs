// The JavaScript end of tests/fixtures/tapes.txt: for each input there, the reader writes
// exactly the tape there, and (for a value, or a call's args) its copy prints as the JSON
// there. tests/core_tape.rs checks that Rust decodes the same tapes into the same JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ArgsReader, ckReadCall, ckReadToolCall } from "../../src/js/read.js";

/** The fixture's cases, each a map of its `key text` lines. */
function fixture() {
  const text = readFileSync(new URL("../fixtures/tapes.txt", import.meta.url), "utf8");
  return text.split(/\n\s*\n/).map((block) => {
    const lines = block.split("\n").filter((l) => l && !l.startsWith("#"));
    return Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(" ")), l.slice(l.indexOf(" ") + 1)]));
  }).filter((c) => Object.keys(c).length > 0);
}

const cases = fixture();
/** A tape's bytes as text (decoded at once: the reader's buffer is reused). */
const text = (bytes) => new TextDecoder().decode(bytes);

test("the fixture has cases of each kind", () => {
  for (const kind of ["value", "call", "tool"]) assert.ok(cases.some((c) => kind in c), kind);
  for (const c of cases) assert.ok("tape" in c && ("json" in c || "error" in c), JSON.stringify(c));
});

for (const c of cases) {
  const budget = Number(c.budget ?? 65536);
  if ("value" in c) {
    test(`value ${c.value.slice(0, 60)}`, () => {
      const reader = new ArgsReader(budget, true);
      const copy = reader.all(JSON.parse(c.value));
      assert.equal(text(reader.bytes()), c.tape);
      assert.equal(copy === undefined ? undefined : JSON.stringify(copy), c.json);
    });
  } else if ("call" in c) {
    test(`call ${c.call.slice(0, 60)}`, () => {
      const reading = ckReadCall(JSON.parse(c.call), budget);
      assert.equal(text(reading.tape), c.tape);
      const args = JSON.parse(c.json).args;
      const copy = reading.copy;
      assert.equal(copy === undefined ? undefined : JSON.stringify(copy), args === undefined ? undefined : JSON.stringify(args));
    });
  } else {
    test(`tool ${c.tool.slice(0, 60)}`, () => {
      assert.equal(text(ckReadToolCall(JSON.parse(c.tool), budget)), c.tape);
    });
  }
}
