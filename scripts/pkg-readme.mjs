// The README that ships in the npm package: the repository's README.md with every relative link
// made absolute against the repository (`package.json`'s `repository`, from Cargo.toml), so
// that each link works from the npm page, where only the package's files exist and a relative
// link resolves nowhere: a link to `<repo>/blob/HEAD/<path>`, an image from
// `<repo>/raw/HEAD/<path>`. Anchors (`#…`) and absolute URLs stay as they are; so does text
// inside fenced code blocks.
//
//   node scripts/pkg-readme.mjs <README.md> <repository URL> <out README.md>
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** `readme` with its relative Markdown links and images made absolute against `repository`. */
export function absoluteLinks(readme, repository) {
  if (!/^https:\/\/[^\s/]+\/\S+[^/]$/.test(repository)) {
    throw new Error(`pkg-readme: the repository must be an https:// URL without a trailing slash; got ${JSON.stringify(repository)}`);
  }
  let fenced = false;
  return readme.split("\n").map((line) => {
    if (/^\s*```/.test(line)) { fenced = !fenced; return line; }
    if (fenced) return line;
    return line.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (all, bang, text, target) => {
      if (/^(#|[a-z][a-z0-9+.-]*:)/i.test(target)) return all;
      const path = target.replace(/^\.\//, "");
      return `${bang}[${text}](${repository}/${bang ? "raw" : "blob"}/HEAD/${path})`;
    });
  }).join("\n");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [from, repository, to] = process.argv.slice(2);
  if (!from || !repository || !to) {
    console.error("usage: node scripts/pkg-readme.mjs <README.md> <repository URL> <out README.md>");
    process.exit(2);
  }
  writeFileSync(to, absoluteLinks(readFileSync(from, "utf8"), repository));
}
