// The receipts real browsers made in the passkey tests, kept for coworkkit/server's tests
// (tests/server/): each as one JSON file with what a server needs to check it — the receipt, the
// call it is for, the origin and RP ID, the enrolled passkeys (public key as base64url, counter,
// user) and the approver. The folder is COWORKKIT_RECEIPTS_DIR (scripts/test sets it to a folder
// of its run), else target/receipts; each engine writes its own sub-folder, emptied first.
//
//   {
//     engine, name,
//     kind: "accepted" | "no-uv" | "other-origin" | "page-signed", // how it was made (passkey.test.mjs)
//     receipt: { statement, credential },
//     expect: { action, args, origin, rpID },        // the call it is for
//     user: "ann",                                   // whose passkey signed
//     approver: { id, role },                        // who the page said was at the keyboard
//     credentials: [{ id, publicKey, counter, user }] // every passkey enrolled on that page
//   }
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ENGINE } from "./harness.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
/** Where this engine's receipts go. */
export const RECEIPTS_DIR = join(resolve(ROOT, process.env.COWORKKIT_RECEIPTS_DIR ?? "target/receipts"), ENGINE);

/** Empties this engine's folder (once, before its first receipt of a run). */
export function clearReceipts() {
  rmSync(RECEIPTS_DIR, { recursive: true, force: true });
  mkdirSync(RECEIPTS_DIR, { recursive: true });
}

/**
 * Keeps one receipt. `store` is the page's CredentialStore (tests/e2e/passkeys.mjs): every
 * passkey in it is written with its public key as base64url and its counter as it is now.
 */
export function saveReceipt(name, { kind = "accepted", receipt, expect, user, approver, store }) {
  const credentials = store.ids().map((id) => {
    const c = store.get(id);
    return { id: c.id, publicKey: Buffer.from(c.publicKey).toString("base64url"), counter: c.counter, user: c.user };
  });
  const file = { engine: ENGINE, name, kind, receipt, expect, user, approver, credentials };
  mkdirSync(RECEIPTS_DIR, { recursive: true });
  writeFileSync(join(RECEIPTS_DIR, `${name}.json`), JSON.stringify(file, null, 2) + "\n");
}
