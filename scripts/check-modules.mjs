// The shape of src/ (SPEC's two rooms, issue 19): fails when the files of the crate import each
// other in a circle, when anything in src/core names src/web, or when a file holds more than
// 600 lines of code. Prints each offender; exits 1 if there is any, 0 otherwise.
//
// Usage: node scripts/check-modules.mjs [repository root, default "."]
//
// An arrow a -> b means: file a names a path that lands in file b, through `use` (trees and
// globs included), or a path written in code that starts with `crate::`, `super::`, `self::`,
// or the name of a child module. A path lands in the deepest file whose module is a prefix of
// it (`crate::core::engine::Effect` lands in src/core/engine/mod.rs, or in src/core/engine.rs
// where that is the module's file). Comments, doc comments and string literals are blanked
// first, so prose and messages mentioning a path do not count.
// `mod x;` declarations are not arrows: a parent declaring its children is how a tree is
// built, and counting it would make every child that uses its parent's items a circle.
// Not read: `#[path]` attributes and paths produced by macros (none in this crate today).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";

const MAX_LOC = 600;
// Circles printed per group of files that reach each other; the rest are counted.
const MAX_CIRCLES_SHOWN = 40;

/** Every .rs file under `dir`, as paths relative to `root`, sorted. */
function rustFiles(root, dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith(".rs")) out.push(relative(root, full).split(sep).join("/"));
    }
  };
  walk(dir);
  return out;
}

/** The module path of a file under src/: src/lib.rs is the crate, a/mod.rs is `a`. */
function modulePath(file) {
  const parts = file.replace(/^src\//, "").replace(/\.rs$/, "").split("/");
  if (parts.length === 1 && (parts[0] === "lib" || parts[0] === "main")) return [];
  if (parts[parts.length - 1] === "mod") parts.pop();
  return parts;
}

/**
 * The source twice, newlines kept in place so that line numbers hold: `code` with comments
 * blanked (for counting lines of code), `bare` with string and char literals blanked as well
 * (for reading paths).
 */
export function strip(src) {
  let code = "", bare = "";
  const blank = (s) => s.replace(/[^\n]/g, " ");
  const isIdent = (c) => c !== undefined && /[A-Za-z0-9_]/.test(c);
  let i = 0;
  while (i < src.length) {
    const c = src[i], next = src[i + 1];
    let end = -1, literal = false;
    if (c === "/" && next === "/") {
      end = src.indexOf("\n", i);
      if (end < 0) end = src.length;
    } else if (c === "/" && next === "*") {
      // Block comments nest in Rust.
      let depth = 0, j = i;
      while (j < src.length) {
        if (src[j] === "/" && src[j + 1] === "*") { depth++; j += 2; }
        else if (src[j] === "*" && src[j + 1] === "/") { depth--; j += 2; if (depth === 0) break; }
        else j++;
      }
      end = j;
    } else if ((c === "r" || (c === "b" && next === "r")) && !isIdent(src[i - 1])) {
      // Raw strings: r"…", r#"…"#, br##"…"##; anything else starting with r is an identifier.
      const m = /^b?r(#*)"/.exec(src.slice(i, i + 260));
      if (m) {
        const close = '"' + m[1];
        const stop = src.indexOf(close, i + m[0].length);
        end = stop < 0 ? src.length : stop + close.length;
        literal = true;
      }
    } else if (c === '"') {
      let j = i + 1;
      while (j < src.length && src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
      end = j + 1;
      literal = true;
    } else if (c === "'") {
      // A char literal ('x', '\n', '\u{1F600}', '"') or a lifetime ('a, 'static), which is code.
      if (next === "\\") {
        const stop = src.indexOf("'", i + 3);
        end = stop < 0 ? src.length : stop + 1;
        literal = true;
      } else {
        const ch = String.fromCodePoint(src.codePointAt(i + 1) ?? 32);
        if (src[i + 1 + ch.length] === "'") { end = i + 2 + ch.length; literal = true; }
      }
    }
    if (end < 0) {
      code += c; bare += c; i++;
      continue;
    }
    const piece = src.slice(i, end);
    if (literal) { code += piece; bare += blank(piece); }
    else { code += blank(piece); bare += blank(piece); }
    i = end;
  }
  return { code, bare };
}

/** Non-blank lines once comments are gone. */
export function linesOfCode(src) {
  return strip(src).code.split("\n").filter((l) => /\S/.test(l)).length;
}

/** Tokens of blanked source: identifiers, `::`, and single punctuation, each with its line. */
function tokenize(bare) {
  const tokens = [];
  const re = /\$?[A-Za-z_][A-Za-z0-9_]*|::|\S/g;
  let line = 1, last = 0, m;
  while ((m = re.exec(bare))) {
    for (let k = last; k < m.index; k++) if (bare[k] === "\n") line++;
    last = m.index;
    tokens.push({ t: m[0], line });
  }
  return tokens;
}

const isName = (t) => t !== undefined && /^\$?[A-Za-z_][A-Za-z0-9_]*$/.test(t);

/**
 * The paths a file names, each as { segs, line, mod }: `mod` is the module the path is written
 * in (the file's module plus any inline `mod x { … }` around it), which `super` and `self`
 * are relative to.
 */
export function pathsIn(src, fileModule) {
  const tokens = tokenize(strip(src).bare);
  const paths = [];
  const braces = []; // per open brace: the inline module it opens, or null
  const current = () => [...fileModule, ...braces.filter((b) => b !== null)];
  let i = 0;

  // A use tree below `prefix`; pushes each leaf's path. Returns the index after the tree.
  const useTree = (j, prefix, line) => {
    if (tokens[j]?.t === "{") {
      j++;
      while (j < tokens.length && tokens[j].t !== "}") {
        j = useTree(j, prefix, line);
        if (tokens[j]?.t === ",") j++;
        else if (tokens[j]?.t !== "}") return j; // not a shape we know: stop reading this tree
      }
      return j + 1;
    }
    if (tokens[j]?.t === "*") {
      paths.push({ segs: prefix, line, mod: current() });
      return j + 1;
    }
    const segs = [...prefix];
    while (isName(tokens[j]?.t)) {
      // A trailing `self` (`use super::js::{self, compact}`) lands where its prefix does.
      segs.push(tokens[j].t);
      j++;
      if (tokens[j]?.t !== "::") break;
      j++;
      if (tokens[j]?.t === "{" || tokens[j]?.t === "*") return useTree(j, segs, line);
    }
    if (tokens[j]?.t === "as") j += 2;
    paths.push({ segs, line, mod: current() });
    return j;
  };

  while (i < tokens.length) {
    const { t, line } = tokens[i];
    const prev = tokens[i - 1]?.t;
    if (t === "{") {
      const inline = tokens[i - 2]?.t === "mod" && isName(prev) ? prev : null;
      braces.push(inline);
      i++;
    } else if (t === "}") {
      braces.pop();
      i++;
    } else if (t === "use" && prev !== "::") {
      // A leading `::` names an extern crate, never a file of ours.
      if (tokens[i + 1]?.t === "::") { i += 2; continue; }
      i = useTree(i + 1, [], line);
    } else if (isName(t) && prev !== "::" && prev !== "in" && tokens[i + 1]?.t === "::") {
      // A path in code: `super::convert::set(…)`, `crate::core::error::Error::X`. Stops at a
      // turbofish or anything that is not a name. `pub(in path)` is a visibility, not a use.
      const segs = [t];
      let j = i + 1;
      while (tokens[j]?.t === "::" && isName(tokens[j + 1]?.t)) { segs.push(tokens[j + 1].t); j += 2; }
      paths.push({ segs, line, mod: current() });
      i = j;
    } else i++;
  }
  return paths;
}

/** The absolute module path a path names, or null when it leaves the crate (`super` above it). */
function absolute(segs, mod) {
  const [head, ...rest] = segs;
  if (head === "crate" || head === "$crate") return rest;
  if (head === "self") return [...mod, ...rest];
  if (head === "super") {
    let base = mod, k = 0;
    while (segs[k] === "super") {
      if (base.length === 0) return null;
      base = base.slice(0, -1);
      k++;
    }
    return [...base, ...segs.slice(k)];
  }
  // Relative to the module it is written in; lands in another file only through a child module.
  return [...mod, ...segs];
}

/** The graph and the size of every file under root/src. */
export function analyse(root) {
  const files = rustFiles(root, join(root, "src"));
  // A check that read nothing must not pass.
  if (files.length === 0) throw new Error("no .rs file found");
  const byModule = new Map(files.map((f) => [modulePath(f).join("::"), f]));
  const landing = (abs) => {
    for (let n = abs.length; n >= 0; n--) {
      const f = byModule.get(abs.slice(0, n).join("::"));
      if (f) return f;
    }
    return null;
  };
  const arrows = new Map(); // file -> Map(target -> first { line, path })
  const loc = new Map();
  for (const file of files) {
    const src = readFileSync(join(root, file), "utf8");
    loc.set(file, linesOfCode(src));
    const out = new Map();
    for (const { segs, line, mod } of pathsIn(src, modulePath(file))) {
      const abs = absolute(segs, mod);
      const target = abs && landing(abs);
      if (target && target !== file && !out.has(target)) out.set(target, { line, path: segs.join("::") });
    }
    arrows.set(file, out);
  }
  return { files, arrows, loc };
}

/** Groups of files that all reach each other (Tarjan), each sorted; only groups of two or more. */
function tangles(files, arrows) {
  let index = 0;
  const idx = new Map(), low = new Map(), stack = [], onStack = new Set(), groups = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); onStack.add(v);
    for (const w of arrows.get(v).keys()) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const group = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); group.push(w); } while (w !== v);
      if (group.length > 1) groups.push(group.sort());
    }
  };
  for (const f of files) if (!idx.has(f)) visit(f);
  return groups.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/**
 * The elementary circles inside one group, each starting at its smallest file so that every
 * circle is found once; stops counting at `limit`.
 */
function circles(group, arrows, limit) {
  const found = [];
  let count = 0;
  const members = new Set(group);
  for (const start of group) {
    const path = [start], seen = new Set([start]);
    const walk = (v) => {
      for (const w of [...arrows.get(v).keys()].sort()) {
        if (count >= limit) return;
        if (!members.has(w) || w < start) continue;
        if (w === start) {
          count++;
          if (found.length < MAX_CIRCLES_SHOWN) found.push([...path, start]);
        } else if (!seen.has(w)) {
          seen.add(w); path.push(w);
          walk(w);
          path.pop(); seen.delete(w);
        }
      }
    };
    walk(start);
  }
  return { found, count };
}

/** The report: lines to print and whether the tree is clean. */
export function check(root) {
  const { files, arrows, loc } = analyse(root);
  const lines = [];
  let problems = 0;
  const arrow = (from, to) => {
    const { line, path } = arrows.get(from).get(to);
    return `${from}:${line} -> ${to}  (${path})`;
  };

  for (const group of tangles(files, arrows)) {
    const limit = 100000;
    const { found, count } = circles(group, arrows, limit);
    problems++;
    lines.push(`circle among ${group.length} files: ${group.join(", ")}`);
    for (const c of found) lines.push(`  circle: ${c.join(" -> ")}`);
    if (count > found.length) {
      lines.push(`  … and ${count >= limit ? `at least ${limit - found.length}` : count - found.length} more circles`);
    }
    lines.push("  arrows inside it (first use in each file):");
    for (const from of group) {
      for (const to of [...arrows.get(from).keys()].sort()) if (group.includes(to)) lines.push(`    ${arrow(from, to)}`);
    }
  }
  for (const from of files.filter((f) => f.startsWith("src/core/"))) {
    for (const to of arrows.get(from).keys()) {
      if (to.startsWith("src/web/")) { problems++; lines.push(`core names web: ${arrow(from, to)}`); }
    }
  }
  for (const f of files) {
    if (loc.get(f) > MAX_LOC) {
      problems++;
      lines.push(`over ${MAX_LOC} lines of code: ${f} has ${loc.get(f)}`);
    }
  }
  const edges = [...arrows.values()].reduce((n, m) => n + m.size, 0);
  lines.push(problems === 0
    ? `check-modules: ok (${files.length} files, ${edges} arrows, no circle, core never names web, none over ${MAX_LOC} lines of code)`
    : `check-modules: ${problems} problem${problems === 1 ? "" : "s"} in ${files.length} files (${edges} arrows)`);
  return { ok: problems === 0, lines };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = process.argv[2] ?? ".";
  let result;
  try {
    result = check(root);
  } catch (e) {
    console.error(`check-modules: cannot read ${join(root, "src")}: ${e.message}`);
    process.exit(1);
  }
  for (const l of result.lines) console.log(l);
  process.exit(result.ok ? 0 : 1);
}
