// The receipts the server tests check: made by real browsers through the package, in the e2e
// passkey tests (tests/e2e/passkey.test.mjs, which saves them with tests/e2e/receipts.mjs), and
// read here from COWORKKIT_RECEIPTS_DIR (scripts/test sets it to a folder of its run), else
// target/receipts. These tests make none themselves and never invent one: without saved
// receipts they fail, naming the command that makes them. COWORKKIT_RECEIPTS_REQUIRE
// ("chromium,firefox" in scripts/test) names the engines whose receipts must all be there.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
export const RECEIPTS_DIR = resolve(ROOT, process.env.COWORKKIT_RECEIPTS_DIR ?? "target/receipts");
const MAKE = "./scripts/build-pkg && COWORKKIT_ENGINE=chromium node --test tests/e2e/passkey.test.mjs"
  + " (and COWORKKIT_ENGINE=firefox), or ./scripts/test";

/** The receipts each engine's e2e passkey test is expected to save (passkey.test.mjs). */
export const NAMES = ["call_7", "c1", "c2", "c3", "ann-p1", "ann-p1-again", "long-lived", "max-p1", "no-uv", "other-origin",
  "duplicate-key", "spaced", "v2", "no-session", "statement-origin", "statement-rpid", "with-approver"];

/** Every saved receipt file, by engine: `{ chromium: { "ann-p1": file, … }, … }`. */
export function loadReceipts() {
  const engines = existsSync(RECEIPTS_DIR) ? readdirSync(RECEIPTS_DIR).filter((e) => existsSync(join(RECEIPTS_DIR, e, "ann-p1.json"))) : [];
  const required = (process.env.COWORKKIT_RECEIPTS_REQUIRE ?? "").split(",").filter(Boolean);
  const missing = required.filter((e) => !engines.includes(e));
  if (engines.length === 0 || missing.length) {
    throw new Error(`no browser-made receipts${missing.length ? ` of ${missing.join(", ")}` : ""} in ${RECEIPTS_DIR}: they come from the e2e passkey test: ${MAKE}`);
  }
  const all = {};
  for (const engine of engines) {
    all[engine] = {};
    for (const name of NAMES) {
      const path = join(RECEIPTS_DIR, engine, `${name}.json`);
      if (!existsSync(path)) throw new Error(`${engine} saved no receipt ${name} in ${RECEIPTS_DIR}: run ${MAKE}`);
      all[engine][name] = JSON.parse(readFileSync(path, "utf8"));
    }
  }
  return all;
}

/** The statement of a saved receipt, parsed. */
export const statementOf = (file) => JSON.parse(file.receipt.statement);

/**
 * The app's lookup of a signed-in user's passkeys from a saved file: the stored passkey with
 * that id if it is `user`'s, else null. `counters` (id → counter) is the app's database column
 * that onCounter writes; it starts from the saved counters.
 */
export function passkeysOf(file, user, counters = new Map()) {
  return (id) => {
    const c = file.credentials.find((x) => x.id === id && x.user === user);
    return c ? { id: c.id, publicKey: c.publicKey, counter: counters.get(id) ?? c.counter } : null;
  };
}

/** A deep copy of a saved receipt, to break by hand. */
export const copyOf = (receipt) => JSON.parse(JSON.stringify(receipt));
