// The messages a newcomer meets (issue 34 part 5), in every engine: every error the API throws
// for bad input is an Error whose message starts with "coworkkit: " and ends with its code
// (" (code: <code>)"), the `code` property the same; the name check says which name and why;
// a non-trusted grant or armHandMode says where to call it; a `confirmationSummary` on an action
// that is not hard warns once per name.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { launch, openFixture, sleep, TEST_TIMEOUT } from "./harness.mjs";

let env;
before(async () => { env = await launch(); });
after(async () => { await env?.close(); });

/** Waits until the transient activation of earlier evaluates (about 5 s) has lapsed. */
async function waitNoActivation(p) {
  const until = Date.now() + 10000;
  while (Date.now() < until) {
    if (!(await p.evaluateNoGesture(() => navigator.userActivation.isActive))) return;
    await sleep(200);
  }
  throw new Error("user activation never lapsed");
}

test("every error thrown for bad input starts with coworkkit: and carries its code", { timeout: TEST_TIMEOUT }, async () => {
  const p = await openFixture(env);
  await waitNoActivation(p);
  // Everything without a user gesture: a person's gesture is what grant and armHandMode need.
  const thrown = await p.evaluateNoGesture(async () => {
    const { Coworkkit } = window.coworkkit;
    const run = () => 1;
    const ck = new Coworkkit();
    ck.defineAction({ name: "archiveTask", description: "Archive a task.", control: "soft", run });
    ck.defineAction({ name: "taken", description: "Taken.", run });
    const cases = {
      armDelay: () => new Coworkkit({ armDelayMs: -1 }),
      defaultControl: () => new Coworkkit({ defaultControl: "firm" }),
      notAnObject: () => ck.defineAction(42),
      noName: () => ck.defineAction({ description: "d", run }),
      badName: () => ck.defineAction({ name: "delete project", description: "d", run }),
      noDescription: () => ck.defineAction({ name: "a1", run }),
      badControl: () => ck.defineAction({ name: "a2", description: "d", control: "firm", run }),
      noRun: () => ck.defineAction({ name: "a3", description: "d" }),
      summaryNotFunction: () => ck.defineAction({ name: "a4", description: "d", control: "hard", confirmationSummary: "Sure?", run }),
      noApprovers: () => ck.defineAction({ name: "a5", description: "d", control: "hard", approvers: [], run }),
      verifySoft: () => ck.defineAction({ name: "a6", description: "d", control: "soft", verify: "passkey", run }),
      badInput: () => ck.defineAction({ name: "a7", description: "d", input: 5, run }),
      duplicate: () => ck.defineAction({ name: "taken", description: "Again.", run }),
      tools: () => ck.tools("nope"),
      toolCallOptions: () => ck.handleToolCall({ id: "c1", type: "function", function: { name: "taken", arguments: "{}" } }, { format: 1 }),
      grant: () => ck.grant("archiveTask", { ttlMs: 60_000 }),
      grantNotSoft: () => ck.grant("taken", { ttlMs: 60_000 }),
      armHandMode: () => ck.armHandMode(),
      modelContext: () => ck.exposeToModelContext({ modelContext: 42 }),
      disposed: () => { const gone = new Coworkkit(); gone.dispose(); gone.defineAction({ name: "late", description: "d", run }); },
    };
    const out = {};
    for (const [label, fn] of Object.entries(cases)) {
      try { await fn(); out[label] = null; } catch (e) {
        out[label] = { isError: e instanceof Error, code: e?.code, message: e?.message };
      }
    }
    ck.dispose();
    return out;
  });
  const labels = Object.keys(thrown);
  assert.equal(labels.length, 20);
  for (const label of labels) {
    const e = thrown[label];
    assert.ok(e, `${label} throws`);
    assert.equal(e.isError, true, `${label}: an Error`);
    assert.equal(typeof e.code, "string", `${label}: a code`);
    assert.ok(e.message.startsWith("coworkkit: "), `${label}: ${e.message}`);
    assert.ok(e.message.endsWith(` (code: ${e.code})`), `${label}: ${e.message}`);
  }
  const codes = Object.fromEntries(labels.map((l) => [l, thrown[l].code]));
  assert.equal(codes.duplicate, "duplicate_action");
  assert.equal(codes.grant, "needs_user_activation");
  assert.equal(codes.armHandMode, "needs_user_activation");
  assert.equal(codes.modelContext, "model_context_unavailable");
  assert.equal(codes.disposed, "disposed");
  for (const label of ["armDelay", "defaultControl", "notAnObject", "noName", "badName", "noDescription", "badControl",
    "noRun", "summaryNotFunction", "noApprovers", "verifySoft", "badInput", "tools", "toolCallOptions"]) {
    assert.equal(codes[label], "invalid_spec", label);
  }
  // Which name, why, and a name that would do.
  assert.match(thrown.badName.message, /^coworkkit: the action name "delete project" is not allowed: a name is the tool name the model calls.*e\.g\. "delete_project" \(code: invalid_spec\)$/);
  assert.match(thrown.noName.message, /name must be a string such as "deleteProject" .*; got undefined \(code: invalid_spec\)$/);
  // Where to call grant and armHandMode, and what automation's evaluate does.
  for (const label of ["grant", "armHandMode"]) {
    assert.match(thrown[label].message, /in the handler of a person's click or key press/, label);
    assert.match(thrown[label].message, /page\.evaluate counts as a gesture/, label);
  }
});

test("a confirmationSummary on an action that is not hard warns once per name; on a hard one, not at all", { timeout: TEST_TIMEOUT }, async () => {
  const p = await openFixture(env);
  await p.evaluate(() => {
    const { Coworkkit } = window.coworkkit;
    const ck = new Coworkkit();
    const spec = (name, control) => ({ name, description: "d", control, confirmationSummary: () => "Sure?", run: () => 1 });
    ck.defineAction(spec("archiveTask", "soft")).dispose();
    ck.defineAction(spec("archiveTask", "soft")); // again, after the first was removed
    ck.defineAction({ ...spec("renameTask", undefined) }); // open by default
    ck.defineAction(spec("deleteTask", "hard"));
    ck.dispose();
  });
  await sleep(100);
  const warned = p.warnings.filter((w) => w.includes("confirmationSummary"));
  assert.deepEqual(warned, [
    'coworkkit: action "archiveTask" has a confirmationSummary, but it is gated "soft", and the summary is shown only on a hard action\'s card. Declare control: "hard" to show it, or drop confirmationSummary.',
    'coworkkit: action "renameTask" has a confirmationSummary, but it is gated "open", and the summary is shown only on a hard action\'s card. Declare control: "hard" to show it, or drop confirmationSummary.',
  ]);
});
