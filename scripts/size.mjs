// Prints the shipped bytes of a built package (wasm + JS glue): raw and gzip -9.
// `--max-gzip N` makes it exit 1 when the gzip total exceeds N bytes (the SPEC §9 budget).
import { readFileSync } from "node:fs";
import { gzipSync, constants } from "node:zlib";
import { join } from "node:path";

const dir = process.argv[2] ?? "pkg";
const maxIdx = process.argv.indexOf("--max-gzip");
const max = maxIdx > 0 ? Number(process.argv[maxIdx + 1]) : Infinity;
let raw = 0, gz = 0;
for (const f of ["coworkkit_bg.wasm", "coworkkit.js"]) {
  const bytes = readFileSync(join(dir, f));
  const g = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
  raw += bytes.length; gz += g;
  console.log(`  ${f.padEnd(20)} ${String(bytes.length).padStart(8)} B raw  ${String(g).padStart(7)} B gzip -9`);
}
console.log(`  ${"shipped (wasm+js)".padEnd(20)} ${String(raw).padStart(8)} B raw  ${String(gz).padStart(7)} B gzip -9  (budget ${40 * 1024} B)`);
if (gz > max) {
  console.error(`size budget exceeded: ${gz} B gzip > ${max} B`);
  process.exit(1);
}
