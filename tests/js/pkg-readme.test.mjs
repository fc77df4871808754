// scripts/pkg-readme.mjs: the shipped README's links, absolute against the repository.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { absoluteLinks } from "../../scripts/pkg-readme.mjs";

const REPO = "https://example.com/acme/coworkkit";

test("relative links and images become absolute; anchors, URLs and code blocks stay", () => {
  const readme = [
    "See [SECURITY.md](SECURITY.md#tiers), [the docs](docs/browsers.md) and [up](#install).",
    "![The card](docs/card.png) [site](https://example.org/x) [mail](mailto:a@b.c) [here](./LICENSE-MIT)",
    "```md",
    "[kept](SPEC.md)",
    "```",
  ].join("\n");
  assert.equal(absoluteLinks(readme, REPO), [
    `See [SECURITY.md](${REPO}/blob/HEAD/SECURITY.md#tiers), [the docs](${REPO}/blob/HEAD/docs/browsers.md) and [up](#install).`,
    `![The card](${REPO}/raw/HEAD/docs/card.png) [site](https://example.org/x) [mail](mailto:a@b.c) [here](${REPO}/blob/HEAD/LICENSE-MIT)`,
    "```md",
    "[kept](SPEC.md)",
    "```",
  ].join("\n"));
});

test("a repository that is not an https URL is refused", () => {
  for (const bad of ["", "git@example.com:acme/coworkkit.git", "https://example.com/acme/coworkkit/"]) {
    assert.throws(() => absoluteLinks("[a](b)", bad), /pkg-readme: the repository must be an https:\/\/ URL/);
  }
});

test("the project's README: after it, no relative link is left outside code blocks", () => {
  const readme = absoluteLinks(readFileSync(new URL("../../README.md", import.meta.url), "utf8"), REPO);
  let fenced = false;
  const relative = [];
  for (const line of readme.split("\n")) {
    if (/^\s*```/.test(line)) { fenced = !fenced; continue; }
    if (fenced) continue;
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^(#|https:|mailto:)/.test(target)) relative.push(target);
    }
  }
  assert.deepEqual(relative, []);
  assert.ok(readme.includes(`](${REPO}/raw/HEAD/docs/card.png)`));
});

test("every #anchor of the README names one of its headings (GitHub's and npm's slugs)", () => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  let fenced = false;
  const slugs = new Set();
  const anchors = [];
  for (const line of readme.split("\n")) {
    if (/^\s*```/.test(line)) { fenced = !fenced; continue; }
    if (fenced) continue;
    const heading = line.match(/^#{1,6} (.*)$/);
    if (heading) slugs.add(heading[1].trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-"));
    for (const [, anchor] of line.matchAll(/\]\(#([^)\s]+)\)/g)) anchors.push(anchor);
  }
  assert.ok(anchors.length > 20);
  assert.deepEqual(anchors.filter((a) => !slugs.has(a)), []);
});
