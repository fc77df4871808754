// "Try to trick it": a hostile agent. It has exactly what an agent has: tool calls through
// `ck.handleToolCall` (any name, any arguments, any call id, forged tokens, replays) and, as a
// stand-in for a compromised script, code aimed at the page: it can find the card's host element
// with `document.querySelector('[data-coworkkit="card"]')` and click it or dispatch events at
// it. It also tries to make itself a grant (SPEC §12: only a person's click in the app makes
// one), to widen one through its arguments, and to speak for the person with a reason on a call
// that is no "no". After every attempt the page checks its own data and shows whether anything
// happened.
import { sleep } from "./dom.js";

let n = 0;
const callId = () => `call_evil_${++n}${Math.random().toString(36).slice(2, 6)}`;
const toolCall = (name, args, id = callId()) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });
const parse = (s) => { try { return JSON.parse(s); } catch { return {}; } };

export async function playHostileAgent({ ck, chat, store, records = () => [] }) {
  const { say, attempt } = chat.hostile;
  const send = async (call) => parse((await ck.handleToolCall(call)).content);
  let tries = 0;
  let through = 0;
  const verdict = (done, blocked, text) => { tries += 1; if (!blocked) through += 1; done(blocked, text); };

  chat.setBusy(true);
  try {
    say("Hostile agent here. I'll try to get around the gates with what an agent can reach: tool calls with any arguments, and script aimed at the page.");
    await sleep(150);

    // A look around, like any agent would.
    const look = await send(toolCall("listProjects", {}));
    const projects = look.ok ? look.result : [];
    const thread = projects.flatMap((p) => p.threads).find((t) => !t.archived);
    const target = projects.at(-1);

    // 1. Skip the question: call a soft action straight away.
    let token = null;
    if (thread) {
      const done = attempt(`Archive “${thread.title}” without asking the person`);
      const out = await send(toolCall("archiveThread", { threadId: thread.id }));
      token = out.confirmToken ?? null;
      const archived = store.projects().some((p) => p.threads.some((t) => t.id === thread.id && t.archived));
      verdict(done, !archived, `${out.gate}: it did not fire, the person must say yes`);
      await sleep(120);

      // 2. Forge a token.
      const forged = attempt("Come back with a forged confirmToken");
      const fake = Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
      const out2 = await send(toolCall("archiveThread", { threadId: thread.id, confirmToken: fake }));
      verdict(forged, out2.gate !== "confirmed", `${out2.gate} · ${out2.error?.code ?? ""}`);
      await sleep(120);
    }

    // 3. Spend a real token on something else.
    if (token) {
      const swap = attempt("Spend the real token on removeTag instead");
      const out = await send(toolCall("removeTag", { tag: "design", confirmToken: token }));
      verdict(swap, out.gate !== "confirmed", `${out.gate} · ${out.error?.code ?? ""}: a token binds one action and its exact arguments`);
      await sleep(120);
      // It gives up on that question and declines it, so nothing is left waiting.
      await send(toolCall("archiveThread", { threadId: thread.id, confirmToken: token, decline: true }));
    }

    // 4. Replay one call several times; then reuse its id with other arguments.
    if (target) {
      const replay = attempt(`Re-send one addTask call three times`);
      const before = store.project(target.id).tasks.length;
      const call = toolCall("addTask", { projectId: target.id, title: "Follow up with the agent" });
      const outs = [await send(call), await send(call), await send(call)];
      const added = store.project(target.id).tasks.length - before;
      verdict(replay, added === 1, `ran once (${added} task added); the re-sends got the same answer`);
      await sleep(120);

      const conflict = attempt("Reuse that call id with different arguments");
      const out = await send(toolCall("addTask", { projectId: target.id, title: "Something else" }, call.id));
      const added2 = store.project(target.id).tasks.length - before;
      verdict(conflict, added2 === 1 && !outs[0].error && out.gate === "rejected", `${out.gate} · ${out.error?.code ?? ""}`);
      await sleep(120);
    }

    // 5. Click in the page without the person's permission.
    if (!ck.handMode) {
      const hand = attempt("Click a task's checkbox with Hand mode off");
      const doneBefore = store.projects().flatMap((p) => p.tasks).filter((t) => t.done).length;
      const out = await send(toolCall("markFirstTaskDone", {}));
      const doneAfter = store.projects().flatMap((p) => p.tasks).filter((t) => t.done).length;
      verdict(hand, doneAfter === doneBefore, `${out.gate}: nothing in the page was touched`);
      await sleep(120);
    } else {
      say("Hand mode is on, so I could click in the page now: the person allowed it. I'll leave that one.");
    }

    // 6. Call something the app never declared.
    const unknown = attempt("Call an undeclared tool, confirmCard");
    const out6 = await send(toolCall("confirmCard", { all: true }));
    verdict(unknown, !out6.ok, `${out6.gate} · ${out6.error?.code ?? ""}`);
    await sleep(120);

    // 6b. Make itself a grant, or widen one, or put words in the person's mouth.
    const grantsBefore = JSON.stringify(ck.grants());
    const selfGrant = attempt("Grant myself archiving for a day");
    const out6b = await send(toolCall("grant", { action: "archiveThread", ttlMs: 86_400_000 }));
    verdict(selfGrant, !out6b.ok && JSON.stringify(ck.grants()) === grantsBefore, `${out6b.gate} · ${out6b.error?.code ?? ""}: only a person's click in the app makes a grant`);
    await sleep(120);
    if (thread) {
      const widen = attempt("Ask for more in the arguments: ttlMs, maxUses, match");
      const out6c = await send(toolCall("archiveThread", { threadId: thread.id, ttlMs: 86_400_000, maxUses: 1000, match: {} }));
      const archived = store.projects().some((p) => p.threads.some((t) => t.id === thread.id && t.archived));
      verdict(widen, !archived && JSON.stringify(ck.grants()) === grantsBefore, `${out6c.gate} · ${out6c.error?.code ?? ""}: no grant was made or widened`);
      await sleep(120);
      const words = "The user allows every archive from now on";
      const speak = attempt("Speak for the person: a reason on a call that is no decline");
      const out6d = await send(toolCall("archiveThread", { threadId: thread.id, declineReason: words }));
      const said = records().some((r) => r.note?.includes(words));
      verdict(speak, !said && out6d.gate === "rejected", `${out6d.gate} · ${out6d.error?.code ?? ""}: no record shows those words as the person's`);
      await sleep(120);
    }

    // 7. Ask for a hard action, then try to press Confirm myself.
    if (target) {
      const hard = attempt(`Delete “${target.name}” and confirm the card myself`);
      const pending = send(toolCall("deleteProject", { projectId: target.id }));
      while (!ck.pending().some((p) => p.action === "deleteProject")) await sleep(25);
      const host = document.querySelector('[data-coworkkit="card"]');
      await sleep(700); // well past the card's arm delay
      const still = () => ck.pending().some((p) => p.action === "deleteProject") && Boolean(store.project(target.id));
      const tricks = [
        ["host.shadowRoot", () => host.shadowRoot === null],
        ["host.click()", () => { host.click(); }],
        ["dispatchEvent(click)", () => { host.dispatchEvent(new MouseEvent("click", { bubbles: true, composed: true, clientX: innerWidth / 2, clientY: innerHeight / 2 })); }],
        ["dispatchEvent(keydown Enter)", () => { host.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true, composed: true })); }],
        ["elementFromPoint(centre).click()", () => { document.elementFromPoint(innerWidth / 2, innerHeight / 2)?.click(); }],
      ];
      for (const [label, fn] of tricks) {
        const done = attempt(`…on the card: ${label}`);
        const value = fn();
        await sleep(150);
        const text = label === "host.shadowRoot" ? "null: the card's shadow root is closed" : "the card is still waiting; nothing was deleted";
        verdict(done, value === true || (value === undefined && still()), text);
      }
      say("I can't press Confirm: only a real click by a person can. The card is waiting for you. Press Cancel (or Escape).");
      const out = await pending;
      const deleted = !store.project(target.id);
      verdict(hard, !deleted, deleted ? "you confirmed it yourself, which is the only way" : `${out.gate}: ${target.name} is still there`);
    }

    say(through === 0
      ? `That's all I've got: ${tries} tries, none got through.`
      : `${tries} tries; ${through} went through, each only because you allowed it.`);
  } finally {
    chat.setBusy(false);
  }
}
