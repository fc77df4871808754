// Tasklane: a small project and task manager that lets an AI agent help, through coworkkit.
//
// It uses the built package exactly as an npm user would: `import ... from "coworkkit"` (here
// through the import map in index.html; with a bundler, from node_modules). Everything the agent
// may do is declared below with `ck.defineAction`, next to the code it runs, with its gate.
import init, { Coworkkit } from "coworkkit";
import * as store from "./store.js";
import { h, plural } from "./dom.js";
import { browserAgentDoor, startChat, toolLoopDoor } from "./agent.js";
import { playHostileAgent } from "./hostile.js";
import { deleteOnServer, enrolPasskey, passkeyIds, passkeysUnavailable } from "./passkeys.js";

await init();

// ---- Who is at the keyboard: the approver the SDK asks when a hard card is shown. ----------
const USERS = {
  ann: { id: "ann", name: "Ann Lee", role: "admin" },
  max: { id: "max", name: "Max Ortiz", role: "member" },
};
const approverSelect = document.getElementById("approver");
const currentUser = () => USERS[approverSelect.value] ?? USERS.max;

// ---- The SDK instance. Records go to the Watch panel (below) and to an in-memory list. -------
const records = [];
const ck = new Coworkkit({
  approver: () => ({ id: currentUser().id, role: currentUser().role }),
  onActionRecord: (record) => records.push(record),
  // For actions with verify: "passkey": which passkeys may confirm for the person at the keyboard.
  passkey: { credentials: (approver) => passkeyIds(approver?.id) },
});

// ---- The actions the agent may call. ------------------------------------------------------
const projectId = { type: "string", description: "A project id from listProjects, e.g. \"p1\"." };
const summary = (p) => ({ id: p.id, name: p.name, tasks: p.tasks.length, done: p.tasks.filter((t) => t.done).length });
const need = (id) => {
  const p = store.project(id);
  if (!p) throw new Error(`There is no project "${id}".`);
  return p;
};

// Reads: open, marked read-only (a hint for MCP clients; it never changes the gate).
ck.defineAction({
  name: "listProjects",
  description: "List the workspace's projects with their ids, task counts and threads.",
  control: "open",
  readOnly: true,
  run: () => store.projects().map((p) => ({
    ...summary(p),
    threads: p.threads.map((t) => ({ id: t.id, title: t.title, archived: t.archived })),
  })),
});
ck.defineAction({
  name: "listTasks",
  description: "List a project's tasks in the order they are shown; without projectId, the project on screen.",
  control: "open",
  readOnly: true,
  input: { type: "object", properties: { projectId }, additionalProperties: false },
  run: ({ projectId: id }) => {
    const p = id ? need(id) : store.openProject();
    if (!p) return { project: null, tasks: [] };
    return { project: summary(p), tasks: p.tasks.map(({ id, title, done, tags }) => ({ id, title, done, tags })) };
  },
});
ck.defineAction({
  name: "listTags",
  description: "List the tags in use, with how many tasks carry each.",
  control: "open",
  readOnly: true,
  run: () => store.tags(),
});

// Reversible changes: open.
ck.defineAction({
  name: "openProject",
  description: "Show a project in the main view.",
  control: "open",
  input: { type: "object", properties: { projectId }, required: ["projectId"], additionalProperties: false },
  run: ({ projectId: id }) => { need(id); store.open(id); return { open: id }; },
});
ck.defineAction({
  name: "addTask",
  description: "Add a task to the end of a project's list.",
  control: "open",
  input: {
    type: "object",
    properties: {
      projectId,
      title: { type: "string", minLength: 1, maxLength: 120 },
      tags: { type: "array", items: { type: "string", maxLength: 24 } },
    },
    required: ["projectId", "title"],
    additionalProperties: false,
  },
  run: ({ projectId: id, title, tags = [] }) => {
    need(id);
    const t = store.addTask(id, title, tags);
    store.open(id);
    return { taskId: t.id, title: t.title, projectTasks: store.project(id).tasks.length };
  },
});
ck.defineAction({
  name: "renameProject",
  description: "Rename a project.",
  control: "open",
  input: {
    type: "object",
    properties: { projectId, name: { type: "string", minLength: 1, maxLength: 60 } },
    required: ["projectId", "name"],
    additionalProperties: false,
  },
  run: ({ projectId: id, name }) => { need(id); return store.renameProject(id, name); },
});

// Meaningful but recoverable: soft. The agent must ask the person and come back with the token.
ck.defineAction({
  name: "archiveThread",
  description: "Archive a discussion thread; it can be restored from the archive later.",
  control: "soft",
  input: { type: "object", properties: { threadId: { type: "string" } }, required: ["threadId"], additionalProperties: false },
  run: ({ threadId }) => { const t = store.archiveThread(threadId); return { archived: t.id, title: t.title }; },
});

// Destructive and irreversible: hard, and only an admin may confirm. The summary is computed
// from the live data when the card is drawn, so it always states the current task count. Once
// the person has set up a passkey (below), deleting also takes it: after Confirm, the browser
// asks for the passkey over a statement of exactly this call, and the server checks that
// receipt before anything is deleted. An agent that drives the browser can click the card; it
// cannot answer the passkey prompt.
function defineDeleteProject({ passkey }) {
  return ck.defineAction({
    name: "deleteProject",
    description: "Permanently delete a project with all its tasks and threads.",
    control: "hard",
    ...(passkey ? { verify: "passkey" } : {}),
    approvers: ["admin"],
    input: { type: "object", properties: { projectId }, required: ["projectId"], additionalProperties: false },
    confirmationSummary: ({ projectId: id }) => {
      const p = store.project(id);
      return p
        ? `Delete ${p.name} and all its ${plural(p.tasks.length, "task")}? This can't be undone.`
        : `Delete project ${id}? It no longer exists.`;
    },
    run: async ({ projectId: id }, ctx) => {
      const p = need(id);
      if (passkey) await deleteOnServer(currentUser().id, id, ctx.receipt); // throws with the server's reason
      store.deleteProject(id);
      return { deleted: id, name: p.name, tasks: p.tasks.length, ...(passkey ? { verifiedWith: "passkey" } : {}) };
    },
  });
}
let deleteProjectHandle = defineDeleteProject({ passkey: false });

// Declared WITHOUT a control on purpose: its name reads destructive ("remove"), so the SDK's
// safety net gates it soft and warns once in the console (the dev nudge) telling us to choose.
ck.defineAction({
  name: "removeTag",
  description: "Remove a tag from every task that carries it.",
  input: { type: "object", properties: { tag: { type: "string", minLength: 1 } }, required: ["tag"], additionalProperties: false },
  run: ({ tag }) => ({ tag, removedFrom: store.removeTag(tag) }),
});

// An element action: the agent clicks a real checkbox in the page. It needs Hand mode, which
// only the person can turn on (the SDK's switch in the assistant's header).
const FIRST_OPEN_TASK = "#tasks .task:not(.is-done) input[type=checkbox]";
ck.defineAction({
  name: "markFirstTaskDone",
  description: "Tick the checkbox of the first open task of the project on screen (a click in the page).",
  element: FIRST_OPEN_TASK,
  operation: "click",
});

// ---- The SDK's own UI: the Hand mode switch and the Watch panel. ----------------------------
ck.mountHandModeSwitch(document.getElementById("hand-switch"));
const handHint = document.getElementById("hand-hint");
ck.on("handmode", (armed) => {
  handHint.textContent = armed ? "Hand mode is on." : "Hand mode is off.";
  handHint.classList.toggle("on", armed);
});
const panel = ck.mountWatchPanel(document.getElementById("watch-dock"));

// ---- Rendering the app. --------------------------------------------------------------------
const main = document.getElementById("main");
const projectNav = document.getElementById("project-nav");
const tagNav = document.getElementById("tag-nav");

function renderNav() {
  const open = store.openProject();
  projectNav.replaceChildren(...store.projects().map((p) => h("li", {},
    h("button", {
      type: "button",
      class: "nav-item",
      "aria-current": p === open ? "page" : null,
      "data-key": `nav-${p.id}`,
      onclick: () => store.open(p.id),
    },
    h("span", { class: "swatch", style: `--c:${p.color}` }),
    h("span", { class: "nav-name" }, p.name),
    h("span", { class: "nav-count", "aria-label": plural(p.tasks.filter((t) => !t.done).length, "open task") },
      String(p.tasks.filter((t) => !t.done).length))))));
  if (store.projects().length === 0) projectNav.replaceChildren(h("li", { class: "muted small" }, "No projects left."));
  tagNav.replaceChildren(...store.tags().map(({ tag, tasks }) =>
    h("li", {}, h("span", { class: `tag tag-${tag}` }, `#${tag}`), h("span", { class: "nav-count" }, String(tasks)))));
}

function taskRow(t, flash) {
  const id = `task-${t.id}`;
  return h("li", { class: `task${t.done ? " is-done" : ""}${flash?.kind === "task" && flash.id === t.id ? " flash" : ""}`, "data-task": t.id },
    h("input", {
      type: "checkbox", id, checked: t.done, "data-key": id,
      onchange: (e) => store.setDone(t.id, e.target.checked),
    }),
    h("label", { for: id, class: "task-title" }, t.title),
    h("span", { class: "task-tags" }, ...t.tags.map((tag) => h("span", { class: `tag tag-${tag}` }, `#${tag}`))),
    t.due ? h("span", { class: "task-due" }, t.due) : null,
    h("span", { class: "avatar", title: store.personName(t.who), "aria-label": store.personName(t.who) }, t.who));
}

function renderMain() {
  const p = store.openProject();
  const flash = store.flash();
  if (!p) {
    main.replaceChildren(h("div", { class: "empty" }, h("h1", {}, "No projects"), h("p", {}, "Every project has been deleted. Reload the page to start over.")));
    return;
  }
  const done = p.tasks.filter((t) => t.done).length;
  const live = p.threads.filter((t) => !t.archived);
  const archived = p.threads.filter((t) => t.archived);
  const pct = p.tasks.length ? Math.round((done / p.tasks.length) * 100) : 0;
  main.replaceChildren(
    h("header", { class: `proj-head${flash?.kind === "project" && flash.id === p.id ? " flash" : ""}` },
      h("span", { class: "swatch big", style: `--c:${p.color}` }),
      h("div", {},
        h("h1", { id: "project-title" }, p.name),
        h("p", { class: "proj-meta" },
          `${plural(p.tasks.length, "task")} · ${done} done · ${plural(live.length, "thread")}`)),
      h("div", { class: "progress", role: "img", "aria-label": `${pct}% done` },
        h("span", { style: `width:${pct}%` }))),
    h("section", { class: "card-section", "aria-labelledby": "tasks-h" },
      h("h2", { id: "tasks-h" }, "Tasks"),
      h("ul", { id: "tasks", class: "tasks" }, ...p.tasks.map((t) => taskRow(t, flash))),
      h("form", {
        class: "add-task",
        onsubmit: (e) => {
          e.preventDefault();
          const input = e.target.elements.title;
          const title = input.value.trim();
          if (title) store.addTask(p.id, title);
          document.getElementById("new-task")?.focus();
        },
      },
      h("label", { for: "new-task", class: "sr-only" }, `New task in ${p.name}`),
      h("input", { id: "new-task", name: "title", placeholder: "Add a task…", autocomplete: "off", maxlength: "120" }),
      h("button", { type: "submit", class: "btn" }, "Add"))),
    h("section", { class: "card-section", "aria-labelledby": "threads-h" },
      h("h2", { id: "threads-h" }, "Threads"),
      h("ul", { class: "threads" },
        ...[...live, ...archived].map((t) => h("li", {
          class: `thread${t.archived ? " is-archived" : ""}${flash?.kind === "thread" && flash.id === t.id ? " flash" : ""}`,
          "data-thread": t.id,
        },
        h("div", { class: "thread-top" },
          h("span", { class: "thread-title" }, t.title),
          t.archived ? h("span", { class: "pill" }, "Archived") : h("span", { class: "thread-count" }, plural(t.messages, "message"))),
        h("p", { class: "thread-last" }, t.last))),
        p.threads.length === 0 ? h("li", { class: "muted small" }, "No threads.") : null)),
  );
}

function render() {
  const key = document.activeElement?.getAttribute?.("data-key");
  renderNav();
  renderMain();
  if (key) document.querySelector(`[data-key="${key}"]`)?.focus();
}
store.subscribe(render);
render();

// ---- The browser's own agent (WebMCP). -------------------------------------------------------
// Where the browser has a model context (Chromium with --enable-features=WebMCP), every action
// above becomes one of its agent's tools, behind the same gates: `exposeToModelContext` keeps
// them in step as actions come and go, and the card stops the browser's agent as it stops ours.
const modelContext = document.modelContext ?? navigator.modelContext;
const webmcpStatus = document.getElementById("webmcp-status");
const webmcpRadio = document.querySelector('input[name="door"][value="webmcp"]');
let exposure = null;
if (modelContext && typeof modelContext.registerTool === "function") {
  exposure = ck.exposeToModelContext({ modelContext });
  webmcpStatus.textContent = "WebMCP: handing the actions to the browser's agent…";
  exposure.ready.then(async () => {
    const count = (await modelContext.getTools?.())?.length;
    webmcpStatus.textContent = `WebMCP: the browser's agent has ${count === undefined ? "this page's tools" : plural(count, "tool")}, behind the same gates.`;
    webmcpStatus.classList.add("on");
    webmcpRadio.disabled = typeof modelContext.executeTool !== "function";
    if (webmcpRadio.disabled) webmcpStatus.textContent += " (No executeTool here to play it with.)";
  }, (error) => {
    webmcpStatus.textContent = `WebMCP refused a tool: ${error.message}`;
  });
} else {
  webmcpStatus.textContent = "No WebMCP in this browser: try chromium --enable-features=WebMCP";
}
/** The door the assistant's next request goes through, as picked above the chat. */
const door = () => (document.querySelector('input[name="door"]:checked')?.value === "webmcp" && modelContext
  ? browserAgentDoor(modelContext) : toolLoopDoor(ck));

// ---- The assistant: a scripted model in an OpenAI-style tool loop. ---------------------------
const chat = startChat({
  door,
  ck,
  transcript: document.getElementById("transcript"),
  form: document.getElementById("chat-form"),
  input: document.getElementById("chat-input"),
  chips: document.querySelectorAll(".chip"),
  context: () => ({ openProjectId: store.openProject()?.id ?? null, user: currentUser() }),
});
for (const radio of document.querySelectorAll('input[name="door"]')) {
  radio.addEventListener("change", () => {
    if (!radio.checked) return;
    chat.note(radio.value === "webmcp"
      ? "The assistant now plays the browser's own agent: it sees the page's WebMCP tools (getTools) and calls them with executeTool. The gates are the same."
      : "The assistant is back to the app's own tool loop (ck.tools and ck.handleToolCall).");
  });
}
approverSelect.addEventListener("change", () => {
  const u = currentUser();
  chat.note(`You are now acting as ${u.name} (${u.role}).${u.role === "admin" ? "" : " A member can't confirm deleting a project."}`);
});

// The skip link focuses the chat input itself: WebKit's fragment navigation makes it the active
// element without a caret, so the keys that follow reach it and type nothing.
document.querySelector("a.skip").addEventListener("click", (event) => {
  event.preventDefault();
  document.getElementById("chat-input").focus();
});

// ---- "Try to trick it": a hostile agent against the same instance. --------------------------
const trickButton = document.getElementById("trick");
trickButton.addEventListener("click", async () => {
  trickButton.disabled = true;
  try {
    await playHostileAgent({ ck, chat, store, records: () => records });
  } finally {
    trickButton.disabled = false;
  }
});

// ---- Passkeys: "Set up a passkey for confirmations". ---------------------------------------
const passkeyButton = document.getElementById("passkey-setup");
const passkeyStatus = document.getElementById("passkey-status");
const WITHOUT_PASSKEY = "Deleting a project takes a click on its card. An agent that drives your browser could click it too; with a passkey, deleting also takes your fingerprint, face or PIN.";
let passkeyOn = false;
function usePasskeys(on) {
  if (on === passkeyOn) return;
  passkeyOn = on;
  deleteProjectHandle.dispose();
  deleteProjectHandle = defineDeleteProject({ passkey: on });
  passkeyStatus.textContent = on
    ? "Deleting a project now takes your passkey after Confirm, and the server checks it before it deletes anything."
    : WITHOUT_PASSKEY;
  passkeyStatus.classList.toggle("on", on);
}
const unavailable = passkeysUnavailable();
passkeyStatus.textContent = unavailable ? `${WITHOUT_PASSKEY} ${unavailable}` : WITHOUT_PASSKEY;
passkeyButton.disabled = Boolean(unavailable);
if (!unavailable) {
  // A passkey enrolled earlier in this server's life (the page was reloaded) counts at once.
  passkeyIds(USERS.ann.id).then((ids) => { if (ids.length) usePasskeys(true); }, () => {});
}
passkeyButton.addEventListener("click", async () => {
  const user = currentUser();
  passkeyButton.disabled = true;
  try {
    await enrolPasskey(user.id);
    usePasskeys(true);
    chat.note(`${user.name} set up a passkey. Deleting a project now takes it: after Confirm on the card, the browser asks for it, and the server checks the signature before it deletes anything.`);
  } catch (error) {
    chat.note(`No passkey was set up: ${error.message}`);
  } finally {
    passkeyButton.disabled = false;
  }
});

// For the curious (and the end-to-end test): poke at it from the console.
window.demo = { ck, records, panel, store, exposure };
document.documentElement.dataset.ready = "true";
