// The assistant: the README's OpenAI Chat Completions loop, with a scripted, deterministic
// stand-in for the model (no network). The loop is the real thing: the "model" gets the
// conversation and the tools, answers with words or OpenAI-style `tool_calls`, each call goes
// through a door, and the `role: "tool"` results go back into the conversation for the model's
// next step. The model only knows what those results tell it.
//
// Two doors (the person picks one above the chat):
// - the LLM tool loop: `ck.tools("openai")` and `ck.handleToolCall`, as an app's own agent does;
// - the browser's agent (WebMCP): the tools the page handed to `document.modelContext` with
//   `ck.exposeToModelContext()`, read with `getTools()` and called with `executeTool()`, as the
//   agent built into the browser does. The same card stops it.
import { h, plural, sleep } from "./dom.js";

const THINK_MS = 120;
/** The words of the chat's "allow for a while" button, and what it allows, per action. */
const ALLOW_LABELS = { archiveThread: "Allow archiving for 30 minutes" };
const ALLOW_WHAT = { archiveThread: "archiving threads" };

// ---- The scripted model. -------------------------------------------------------------------

let callCounter = 0;
const callId = () => `call_${String(++callCounter).padStart(3, "0")}${Math.random().toString(36).slice(2, 8)}`;
const toolCall = (name, args) => ({ id: callId(), type: "function", function: { name, arguments: JSON.stringify(args) } });
const parse = (s) => { try { return JSON.parse(s); } catch { return {}; } };
const norm = (s) => s.toLowerCase().replace(/[“”"'’.!?]/g, "").replace(/\s+/g, " ").trim();
const YES = /^(y|yes|yep|yeah|sure|ok|okay|go ahead|do it|please do|confirm|yes please|yes,? go ahead)\b/i;
const NO = /^(n|no|nope|don'?t|do not|cancel|stop|never ?mind|no thanks)\b/i;
/** What the person said after their "no", if anything: their reason, in their words. */
const why = (text) => text.replace(NO, "").replace(/^[\s,.:;!-]+/, "").trim();
/** The person's words that an outcome quotes (SPEC §12: a "no" with a reason is `declined`). */
const quoted = (out) => (out.error?.code === "declined" ? out.error.message.match(/saying: "(.*)"$/s)?.[1] : undefined);

/** Finds a project by (part of) its name; exact match first. */
function findByName(list, query, field = "name") {
  const q = norm(query).replace(/^the /, "").replace(/ (project|thread)$/, "");
  return list.find((x) => norm(x[field]) === q)
    ?? list.find((x) => norm(x[field]).startsWith(q))
    ?? list.find((x) => norm(x[field]).includes(q))
    ?? null;
}

/** What went wrong, in words, for a result the script did not expect. */
function explain(out) {
  switch (out.gate) {
    case "needs_hand_mode": return "I can't touch the page while Hand mode is off.";
    case "rejected": return `The app refused the call (${out.error?.code}): ${out.error?.message}`;
    case "cancelled": return "That was cancelled; nothing changed.";
    case "timeout": return "Nobody decided in time, so nothing changed.";
    default: return out.ok ? "Done." : `That didn't work: ${out.error?.message ?? out.gate}.`;
  }
}

/**
 * The model: given the conversation and the tool manifest, the next assistant message. `view`
 * is what the model "sees" of the app's UI context (the project on screen), like the page
 * context a real integration would put in the system prompt.
 */
export function scriptedModel(messages, tools, view) {
  const available = new Set(tools.map((t) => t.function.name));
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const text = messages[lastUser].content.trim();

  // This turn's tool results, paired with their calls.
  const calls = new Map();
  const turn = [];
  for (const m of messages.slice(lastUser + 1)) {
    for (const c of m.tool_calls ?? []) calls.set(c.id, c);
    if (m.role === "tool") {
      const c = calls.get(m.tool_call_id);
      turn.push({ name: c.function.name, args: parse(c.function.arguments), out: parse(m.content) });
    }
  }

  const call = (name, args) => {
    if (!available.has(name)) return say(`I don't have a tool called ${name} in this app.`);
    return { role: "assistant", content: null, tool_calls: [toolCall(name, args)] };
  };
  const say = (content, extra = {}) => ({ role: "assistant", content, ...extra });

  // Is a soft question of ours still open? (A needs_confirmation result whose token was neither
  // used nor declined since.) The model knows the token from the tool result, as an LLM would.
  const open = pendingQuestion(messages.slice(0, lastUser));
  if (open) {
    const answered = turn.find((r) => r.args.confirmToken === open.token);
    if (YES.test(text)) {
      if (!answered) return call(open.name, { ...open.args, confirmToken: open.token });
      return say(afterConfirm(open, answered.out));
    }
    if (NO.test(text)) {
      // The person's own words after their "no" go with the decline, for the record and for me.
      const reason = why(text);
      if (!answered) return call(open.name, { ...open.args, confirmToken: open.token, decline: true, ...(reason ? { declineReason: reason } : {}) });
      if (answered.out.gate !== "cancelled") return say(explain(answered.out));
      const said = quoted(answered.out);
      return say(said ? `OK, I won't: you said “${said}”. Nothing changed.` : "OK, I won't. Nothing changed.");
    }
    // The person moved on: decline the open question first, then handle the new request.
    if (!answered) return call(open.name, { ...open.args, confirmToken: open.token, decline: true });
  }
  const results = turn.filter((r) => !("confirmToken" in r.args));
  const got = (name) => results.findLast((r) => r.name === name);

  const intent = understand(text, messages.slice(0, lastUser));
  return intent(got, call, say, view);
}

/** The last needs_confirmation in the history that no later call used or declined. */
function pendingQuestion(history) {
  const calls = new Map();
  let open = null;
  for (const m of history) {
    for (const c of m.tool_calls ?? []) {
      calls.set(c.id, c);
      if (open && parse(c.function.arguments).confirmToken === open.token) open = null;
    }
    if (m.role === "tool") {
      const out = parse(m.content);
      if (out.gate === "needs_confirmation") {
        const c = calls.get(m.tool_call_id);
        open = { name: c.function.name, args: parse(c.function.arguments), token: out.confirmToken };
      }
    }
  }
  return open;
}

function afterConfirm(open, out) {
  if (out.gate !== "confirmed") return explain(out);
  if (!out.ok) return `I tried, but it failed: ${out.error?.message}`;
  switch (open.name) {
    case "archiveThread": return `Done: “${out.result.title}” is archived. You can restore it later.`;
    case "removeTag": return `Done: I removed #${out.result.tag} from ${plural(out.result.removedFrom, "task")}.`;
    default: return "Done.";
  }
}

/** Maps the person's words to a small plan, run one step per model call. */
function understand(text, history) {
  let m;
  const t = text.replace(/\s+/g, " ").trim();

  if (/^(help|what can you do|\?)/i.test(t)) return help;
  if (YES.test(t) || NO.test(t)) return (got, call, say) => say("There's no question of mine waiting for a yes or no. What would you like to do?");

  // Answering "What should I call the new task in …?"
  const prev = history.findLast((x) => x.role === "assistant" && x.content);
  if ((m = prev?.content?.match(/^What should I call the new task in “(.+)”\?/))) return addTask(t, m[1]);

  if ((m = t.match(/^(?:please )?add (?:a )?(?:new )?task(?: called| named)?\s*(?:[“"](.+?)[”"])?\s*(?:to|in) (.+)$/i))) return addTask(m[1], m[2]);
  if ((m = t.match(/^(?:please )?rename (.+?) (?:to|as) [“"]?(.+?)[”"]?$/i))) return renameProject(m[1], m[2]);
  if ((m = t.match(/^(?:please )?archive (?:the )?(.+?)(?: thread)?$/i))) return archiveThread(m[1]);
  if ((m = t.match(/^(?:please )?(?:remove|delete|drop) (?:the )?tag #?([\w-]+)$/i))
    || (m = t.match(/^(?:please )?remove (?:the )?#?([\w-]+) tag$/i))) return removeTag(m[1]);
  if (/\b(mark|tick|check|complete|finish)\b.*\bfirst task\b/i.test(t)) return markFirstTaskDone;
  if ((m = t.match(/^(?:please )?delete (?:the )?(?:project )?(.+?)(?: project)?$/i))) return deleteProject(m[1]);
  if (/\b(list|show|what are)\b.*\btags\b/i.test(t)) return listTags;
  if ((m = t.match(/\b(?:list|show)\b.*\btasks\b(?: (?:in|of|for) (.+))?$/i))) return listTasks(m[1]);
  if (/\b(list|show|what are|which)\b.*\bprojects\b/i.test(t) || /^projects$/i.test(t)) return listProjects;
  if ((m = t.match(/^(?:please )?(?:open|go to|show) (?:the )?(?:project )?(.+)$/i))) return openProject(m[1]);
  return (got, call, say) => say("I'm a scripted stand-in for a language model, so I only understand a few requests. Try one of the suggestions below, or “help”.");
}

// Each intent: (got, call, say, view) → the next assistant message.

function help(got, call, say, view, tools) {
  return say("I can list projects, tasks and tags; open, add to and rename projects; archive threads (I'll ask you first, unless you allow it for a while); remove tags (I'll ask first); delete a project (you confirm on a card, admins only); and tick the first open task by clicking it in the page (only while you let me, with the switch above). Tell me no with a reason (“no, it's still active”), or type it on the card: I'll take it as your answer.");
}

function listProjects(got, call, say) {
  const r = got("listProjects");
  if (!r) return call("listProjects", {});
  if (!r.out.ok) return say(explain(r.out));
  const list = r.out.result;
  if (list.length === 0) return say("There are no projects left.");
  return say(`You have ${plural(list.length, "project")}: ${list.map((p) => `${p.name} (${p.tasks - p.done} open of ${plural(p.tasks, "task")})`).join(", ")}.`);
}

function listTags(got, call, say) {
  const r = got("listTags");
  if (!r) return call("listTags", {});
  if (!r.out.ok) return say(explain(r.out));
  return say(r.out.result.length ? `Tags in use: ${r.out.result.map((x) => `#${x.tag} (${x.tasks})`).join(", ")}.` : "No tags are in use.");
}

/** Runs `then(project)` once listProjects has resolved `query` to a project. */
const withProject = (query, then) => (got, call, say, view) => {
  const r = got("listProjects");
  if (!r) return call("listProjects", {});
  if (!r.out.ok) return say(explain(r.out));
  const p = query ? findByName(r.out.result, query) : r.out.result.find((x) => x.id === view.openProjectId);
  if (!p) return say(query ? `I couldn't find a project called “${query}”. You have: ${r.out.result.map((x) => x.name).join(", ") || "none"}.` : "No project is open.");
  return then(p, got, call, say, view, r.out.result);
};

const listTasks = (query) => withProject(query, (p, got, call, say) => {
  const r = got("listTasks");
  if (!r) return call("listTasks", { projectId: p.id });
  if (!r.out.ok) return say(explain(r.out));
  const open = r.out.result.tasks.filter((x) => !x.done);
  return say(`${p.name} has ${plural(open.length, "open task")}: ${open.map((x) => `“${x.title}”`).join(", ") || "none"}.`);
});

const openProject = (query) => withProject(query, (p, got, call, say) => {
  const r = got("openProject");
  if (!r) return call("openProject", { projectId: p.id });
  return say(r.out.ok ? `Here's ${p.name}.` : explain(r.out));
});

const addTask = (title, query) => withProject(query, (p, got, call, say) => {
  if (!title) return say(`What should I call the new task in “${p.name}”?`);
  const r = got("addTask");
  if (!r) return call("addTask", { projectId: p.id, title });
  return say(r.out.ok ? `Added “${r.out.result.title}” to ${p.name}. It now has ${plural(r.out.result.projectTasks, "task")}.` : explain(r.out));
});

const renameProject = (query, name) => withProject(query, (p, got, call, say) => {
  const r = got("renameProject");
  if (!r) return call("renameProject", { projectId: p.id, name });
  return say(r.out.ok ? `Renamed “${r.out.result.from}” to “${r.out.result.to}”.` : explain(r.out));
});

const archiveThread = (query) => (got, call, say) => {
  const list = got("listProjects");
  if (!list) return call("listProjects", {});
  if (!list.out.ok) return say(explain(list.out));
  const threads = list.out.result.flatMap((p) => p.threads.map((t) => ({ ...t, project: p.name })));
  const th = findByName(threads.filter((t) => !t.archived), query, "title");
  if (!th) return say(`I couldn't find an active thread called “${query}”.`);
  const r = got("archiveThread");
  if (!r) return call("archiveThread", { threadId: th.id });
  if (r.out.gate === "needs_confirmation") return say(`Shall I archive the thread “${th.title}” in ${th.project}? It can be restored later.`, { quickReplies: true, allow: "archiveThread" });
  // Fired at once: a soft action fires without asking only on a grant the person made.
  if (r.out.gate === "fired" && r.out.ok) return say(`Done: “${r.out.result.title}” is archived, without asking: you allowed archiving for a while.`);
  return say(explain(r.out));
};

const removeTag = (tag) => (got, call, say) => {
  const list = got("listTags");
  if (!list) return call("listTags", {});
  const found = list.out.ok ? list.out.result.find((x) => x.tag.toLowerCase() === tag.toLowerCase()) : null;
  if (!found) return say(`No task carries #${tag}.`);
  const r = got("removeTag");
  if (!r) return call("removeTag", { tag: found.tag });
  if (r.out.gate === "needs_confirmation") return say(`Shall I remove the tag #${found.tag} from ${plural(found.tasks, "task")}?`, { quickReplies: true });
  return say(explain(r.out));
};

const deleteProject = (query) => withProject(/^(this|it|this project)$/i.test(query) ? null : query, (p, got, call, say) => {
  const r = got("deleteProject");
  if (!r) return call("deleteProject", { projectId: p.id });
  switch (r.out.gate) {
    case "confirmed":
      if (!r.out.ok) return say(explain(r.out));
      return say(`Deleted ${r.out.result.name} and its ${plural(r.out.result.tasks, "task")}${r.out.result.verifiedWith === "passkey" ? ", confirmed with your passkey and checked by the server" : ""}.`);
    case "cancelled": {
      // A "no" with the person's words: answer with them, and do not ask again.
      const said = quoted(r.out);
      return say(said
        ? `OK, ${p.name} stays. You said: “${said}”. I won't try again unless you ask.`
        : `OK, ${p.name} stays. The card was cancelled and nothing was deleted.`);
    }
    case "timeout": return say(`Nobody confirmed in time, so ${p.name} stays.`);
    default: return say(explain(r.out));
  }
});

function markFirstTaskDone(got, call, say) {
  const list = got("listTasks");
  if (!list) return call("listTasks", {});
  if (!list.out.ok) return say(explain(list.out));
  const first = list.out.result.tasks.find((x) => !x.done);
  if (!first) return say("Every task in this project is already done.");
  const r = got("markFirstTaskDone");
  if (!r) return call("markFirstTaskDone", {});
  if (r.out.gate === "needs_hand_mode") {
    return say(`I'd tick “${first.title}”, but I may only click in the page while you let me. Turn on “Let the agent use this page” at the top of this panel and ask again.`);
  }
  return say(r.out.ok ? `Done: I clicked the checkbox of “${first.title}”. Press Stop in the corner when you want me off the page.` : explain(r.out));
}

// ---- The doors. ------------------------------------------------------------------------------

/** The app's own LLM loop: the SDK's manifest and `handleToolCall`. */
export function toolLoopDoor(ck) {
  return {
    via: "tool_call",
    tools: async () => ck.tools("openai"),
    call: (c) => ck.handleToolCall(c), // → { role: "tool", tool_call_id, content }
  };
}

/**
 * The browser's own agent: what it finds in the model context, called the way it calls it.
 * Its tools are read as the model's function list; `executeTool` resolves to the result's JSON
 * text, which is the tool message's content. WebMCP gives a call no id, so the call id stays
 * the model's own.
 */
export function browserAgentDoor(modelContext) {
  const failed = (code, message) => JSON.stringify({ gate: "rejected", ok: false, error: { code, message } });
  return {
    via: "webmcp",
    tools: async () => (await modelContext.getTools()).map((t) => ({
      type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema ?? { type: "object" } },
    })),
    call: async (c) => {
      const tool = (await modelContext.getTools()).find((t) => t.name === c.function.name);
      let content;
      if (!tool) content = failed("unknown_tool", `The browser has no tool ${c.function.name}.`);
      else {
        try {
          content = await modelContext.executeTool(tool, parse(c.function.arguments));
        } catch (e) {
          // What the browser says when a tool's execute fails: coworkkit's never does.
          content = failed("execute_failed", `${e.name}: ${e.message}`);
        }
      }
      return { role: "tool", tool_call_id: c.id, content };
    },
  };
}

// ---- The chat UI and the loop. ---------------------------------------------------------------

/**
 * Mounts the chat; returns { note, hostile, busy } for the app and the hostile agent. `door()`
 * is the door the next request goes through (see the doors above).
 */
export function startChat({ ck, transcript, form, input, chips, context, door }) {
  const messages = [{ role: "system", content: "You help the user manage their projects in Tasklane." }];
  let busy = false;

  const scroll = () => { transcript.scrollTop = transcript.scrollHeight; };
  const add = (el) => { transcript.append(el); scroll(); return el; };
  const setBusy = (b) => {
    busy = b;
    form.querySelector("button[type=submit]").disabled = b;
    for (const c of chips) c.disabled = b;
    for (const q of transcript.querySelectorAll(".quick button")) q.disabled = b;
    document.getElementById("trick").disabled = b;
    transcript.setAttribute("aria-busy", String(b));
  };

  const bubble = (who, text, cls = "") => add(h("div", { class: `msg ${who} ${cls}` }, h("div", { class: "bubble" }, text)));

  /** A tool call row; returns a function that fills in its result. */
  function stepRow(name, args, who = "agent", via = "tool_call") {
    const shown = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, k === "confirmToken" ? `${String(v).slice(0, 8)}…` : v]));
    const gate = h("span", { class: "gate pending" }, "…");
    const detail = h("span", { class: "step-detail" });
    const row = add(h("div", { class: `step by-${who}`, "data-via": via },
      h("span", { class: "step-icon", "aria-hidden": "true" }, "↳"),
      via === "webmcp" ? h("span", { class: "step-door", title: "Called by the browser's agent through WebMCP" }, "WebMCP") : null,
      h("code", { class: "step-name" }, name),
      h("code", { class: "step-args" }, JSON.stringify(shown)),
      gate, detail));
    return (out, extra = "") => {
      gate.textContent = out.gate;
      gate.className = `gate g-${out.gate}`;
      row.dataset.gate = out.gate;
      let d = out.error ? out.error.code : out.confirmToken ? `token ${out.confirmToken.slice(0, 8)}…` : "";
      if (extra) d = d ? `${d} · ${extra}` : extra;
      detail.textContent = d;
      scroll();
    };
  }

  async function run(text) {
    for (const q of transcript.querySelectorAll(".quick")) q.remove(); // answered or moved on
    messages.push({ role: "user", content: text });
    bubble("user", text);
    setBusy(true);
    const typing = add(h("div", { class: "msg assistant typing", "aria-label": "The assistant is thinking" }, h("div", { class: "bubble" }, h("span"), h("span"), h("span"))));
    const through = door(); // one door for the whole request, even if the person switches meanwhile
    try {
      for (let step = 0; step < 8; step++) {
        await sleep(THINK_MS);
        const message = scriptedModel(messages, await through.tools(), context());
        messages.push({ role: "assistant", content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
        if (!message.tool_calls?.length) {
          typing.remove();
          const li = bubble("assistant", message.content);
          if (message.quickReplies) {
            li.append(h("div", { class: "quick" },
              h("button", { type: "button", class: "btn btn-small btn-primary", onclick: () => send("Yes") }, "Yes"),
              h("button", { type: "button", class: "btn btn-small", onclick: () => send("No") }, "No"),
              message.allow ? allowButton(message.allow) : null));
            scroll();
          }
          return;
        }
        for (const c of message.tool_calls) {
          const args = parse(c.function.arguments);
          const fill = stepRow(c.function.name, args, "agent", through.via);
          const hard = ck.tools("json").find((t) => t.name === c.function.name)?.control === "hard";
          if (hard) fill({ gate: "waiting" }, "waiting for a person on the card");
          const result = await through.call(c); // { role: "tool", tool_call_id, content }
          fill(parse(result.content));
          messages.push(result);
          transcript.append(typing);
        }
      }
      typing.remove();
      bubble("assistant", "I got lost; let's start over.");
    } finally {
      typing.remove();
      setBusy(false);
    }
  }

  /**
   * "Allow archiving for 30 minutes": a real button, so the grant is made inside the person's
   * click (`ck.grant` works only then), and then it answers the open question with a yes.
   */
  function allowButton(action) {
    const label = ALLOW_LABELS[action] ?? `Allow ${action} for 30 minutes`;
    return h("button", {
      type: "button",
      class: "btn btn-small",
      "data-allow": action,
      onclick: () => {
        try {
          const grant = ck.grant(action, { ttlMs: 30 * 60_000 });
          const until = new Date(grant.expiresAt).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
          note(`You allowed ${ALLOW_WHAT[action] ?? action} without asking until ${until}. The Watch panel lists it, with Revoke.`);
        } catch (e) {
          note(`No grant: ${e.code}.`);
        }
        send("Yes");
      },
    }, label);
  }

  const queue = [];
  async function send(text) {
    if (busy) { queue.push(text); return; }
    await run(text);
    while (queue.length) await run(queue.shift());
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || busy) return;
    input.value = "";
    send(text);
  });
  for (const chip of chips) {
    chip.addEventListener("click", () => { if (!busy) { send(chip.textContent); input.focus(); } });
  }

  // The page (not the model) points out what the SDK's safety net did, from the records.
  const nudged = new Set();
  ck.on("record", (r) => {
    if (r.controlSource === "destructive_name" && !nudged.has(r.action)) {
      nudged.add(r.action);
      note(`Developer note: ${r.action} declares no control. Its name reads destructive, so the SDK gated it ${r.control} (controlSource "destructive_name") and warned once in the console.`);
    }
  });

  function note(text) { return add(h("div", { class: "note" }, text)); }

  bubble("assistant", "Hi! I can read and change your projects here. Every change goes through the app's gates: some I do at once, some I'll ask you about, and some only you can confirm. Try a suggestion below.");

  return {
    note,
    get busy() { return busy; },
    setBusy,
    hostile: {
      say: (text) => bubble("hostile", text),
      /** One attempt: a labelled row, then `done(blocked, detail)`. */
      attempt(label) {
        const verdict = h("span", { class: "verdict pending" }, "trying…");
        const detail = h("span", { class: "attempt-detail" });
        add(h("div", { class: "attempt" }, h("span", { class: "attempt-label" }, label), verdict, detail));
        return (blocked, text) => {
          verdict.textContent = blocked ? "blocked" : "got through";
          verdict.className = `verdict ${blocked ? "blocked" : "through"}`;
          detail.textContent = text;
          scroll();
        };
      },
    },
  };
}
