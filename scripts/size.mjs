// Prints the shipped bytes of a built package (wasm + JS): raw and gzip -9; and, measured on
// its own (SPEC §9's budget is the root entry's), what the second entry coworkkit/inline ships.
// `--check` makes it exit 1 when the gzip total exceeds SPEC §9's budget (112 KB), or
// `--ceiling N` bytes when given (the ratchet kept in scripts/test: the size last set + 1 KB),
// or when coworkkit/inline ships more than INLINE_MARGIN over the root entry.
// `shippedFiles(dir)` is also what the benchmark counts.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { gzipSync, constants } from "node:zlib";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The files of a built package that a browser loads: the wasm and the JS (the glue, with the
 * modules of src/js/ bundled in; an unbundled build's snippets/ count too).
 */
/** SPEC §9: what the root entry ships, gzip -9, at most 112 KB (114,688 B). */
export const BUDGET = 112 * 1024;

/**
 * What coworkkit/inline may ship beyond the root entry, gzip -9: the README promises about the
 * same size, which holds because the wasm inside it is compressed before it is base64-encoded
 * (base64 of the raw wasm defeats gzip, and would be far over this).
 */
export const INLINE_MARGIN = 2 * 1024;

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
  const at = process.argv.indexOf("--ceiling");
  const ceiling = at > 0 ? Number(process.argv[at + 1]) : Infinity;
  if (!(ceiling > 0)) {
    console.error("size: --ceiling needs a positive number of bytes");
    process.exit(2);
  }
  let raw = 0, gz = 0;
  for (const f of shippedFiles(dir)) {
    const bytes = readFileSync(join(dir, f));
    const g = gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
    raw += bytes.length; gz += g;
    console.log(`  ${(f.length > 20 ? "…" + f.slice(-19) : f).padEnd(20)} ${String(bytes.length).padStart(8)} B raw  ${String(g).padStart(7)} B gzip -9`);
  }
  const limits = `budget ${BUDGET} B${ceiling < Infinity ? `, ceiling ${ceiling} B` : ""}`;
  console.log(`  ${"shipped (wasm+js)".padEnd(20)} ${String(raw).padStart(8)} B raw  ${String(gz).padStart(7)} B gzip -9  (${limits})`);
  // coworkkit/inline: its module (the wasm inside it) and the glue it shares with the root.
  let inlineGz = null;
  if (existsSync(join(dir, "inline.js"))) {
    let inlineRaw = 0;
    inlineGz = 0;
    for (const f of ["inline.js", "coworkkit.js"]) {
      const bytes = readFileSync(join(dir, f));
      inlineRaw += bytes.length;
      inlineGz += gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).length;
    }
    console.log(`  ${"coworkkit/inline".padEnd(20)} ${String(inlineRaw).padStart(8)} B raw  ${String(inlineGz).padStart(7)} B gzip -9  (inline.js + coworkkit.js; no wasm fetched)`);
  }
  if (!process.argv.includes("--check")) process.exit(0);
  if (gz > BUDGET) {
    console.error(`size: over SPEC §9's budget: ${gz} B gzip > ${BUDGET} B`);
    process.exit(1);
  }
  if (gz > ceiling) {
    console.error(`size: over the ceiling: ${gz} B gzip > ${ceiling} B. Shrink it back, or raise ` +
      "SIZE_CEILING in scripts/test with a line in BENCHMARKS.md saying what bought the bytes");
    process.exit(1);
  }
  if (inlineGz !== null && inlineGz > gz + INLINE_MARGIN) {
    console.error(`size: coworkkit/inline ships ${inlineGz} B gzip, more than ${INLINE_MARGIN} B over the root ` +
      `entry's ${gz} B: is the wasm inside it still compressed before it is base64-encoded?`);
    process.exit(1);
  }
}
