// Prints the shipped bytes of a built package (wasm + JS): raw and gzip -9.
// `--max-gzip N` makes it exit 1 when the gzip total exceeds N bytes (the SPEC §9 budget).
// `shippedFiles(dir)` is also what the benchmark counts.
import { readFileSync, readdirSync } from "node:fs";
import { gzipSync, constants } from "node:zlib";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The files of a built package that a browser loads: the wasm and the JS (the glue, with the
 * modules of src/js/ bundled in; an unbundled build's snippets/ count too).
 */
export function shippedFiles(dir) {
  const snippets = (function walk(d) {
    try {
      return readdirSync(d, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
    } catch { return []; }
  })(join(dir, "snippets")).map((f) => relative(dir, f));
  return ["coworkkit_bg.wasm", "coworkkit.js", ...snippets];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] ?? "pkg";
  const maxIdx = process.argv.indexOf("--max-gzip");
  const max = maxIdx > 0 ? Number(process.argv[maxIdx + 1]) : Infinity;
  let raw = 0, gz = 0;
  for (const f of shippedFiles(dir)) {
    const bytes = readFileSync(join(dir, f));
    const g = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
    raw += bytes.length; gz += g;
    console.log(`  ${(f.length > 20 ? "…" + f.slice(-19) : f).padEnd(20)} ${String(bytes.length).padStart(8)} B raw  ${String(g).padStart(7)} B gzip -9`);
  }
  console.log(`  ${"shipped (wasm+js)".padEnd(20)} ${String(raw).padStart(8)} B raw  ${String(gz).padStart(7)} B gzip -9  (budget ${80 * 1024} B)`);
  if (gz > max) {
    console.error(`size budget exceeded: ${gz} B gzip > ${max} B`);
    process.exit(1);
  }
}
