// Tasklane's data: projects with tasks, tags and threads, kept in memory (a reload starts over).
// Plain functions, no framework; `subscribe` re-renders the page after every change.

const people = { AL: "Ann Lee", MO: "Max Ortiz", RK: "Riya Kapoor", JB: "Jonas Berg", SC: "Sam Chen" };

const task = (title, tags = [], who = "AL", due = "", done = false) => ({ title, tags, who, due, done });

const seed = [
  {
    name: "Website redesign", color: "#4f46e5",
    tasks: [
      task("Audit the current sitemap", ["research"], "RK", "", true),
      task("Wireframes for the new homepage", ["design"], "JB", "", true),
      task("Pick the type scale and colour tokens", ["design"], "JB", "Jun 12"),
      task("Rewrite the homepage hero copy", ["copy", "urgent"], "AL", "Jun 10"),
      task("Fix the broken pricing table on mobile", ["bug", "urgent"], "MO", "Jun 9"),
      task("Migrate the blog to the new CMS", ["backend"], "SC", "Jun 20"),
      task("Redirect map for retired URLs", ["backend"], "SC", "Jun 18"),
      task("Accessibility pass on forms", ["design"], "RK", "Jun 21"),
      task("New case-study page template", ["design", "copy"], "JB", "Jun 24"),
      task("Set up analytics events", ["backend"], "MO", "Jun 25"),
      task("Launch announcement email", ["copy"], "AL", "Jun 28"),
    ],
    threads: [
      { title: "Launch", messages: 14, last: "Riya: Can we move the launch to the 30th?" },
      { title: "Homepage copy, round 3", messages: 6, last: "Ann: Shorter hero, please." },
    ],
  },
  {
    name: "Mobile app 2.0", color: "#0891b2",
    tasks: [
      task("Offline mode for the task list", ["backend"], "SC", "Jul 2"),
      task("Crash on login with SSO", ["bug", "urgent"], "MO", "Jun 11"),
      task("Dark mode icons", ["design"], "JB", "Jul 5"),
      task("TestFlight build for the beta group", [], "MO", "Jun 15", true),
      task("Push-notification settings screen", ["design"], "RK", "Jul 8"),
      task("Release notes for 2.0", ["copy"], "AL", "Jul 12"),
    ],
    threads: [{ title: "Beta feedback", messages: 23, last: "Jonas: Three people asked for widgets." }],
  },
  {
    name: "Q3 hiring", color: "#c026d3",
    tasks: [
      task("Job post: senior frontend engineer", ["copy"], "AL", "Jun 14"),
      task("Interview scorecards", ["research"], "RK", "Jun 19"),
      task("Book the onsite rooms", [], "MO", "Jun 26"),
      task("Reference checks for the design lead", ["urgent"], "AL", "Jun 13"),
    ],
    threads: [{ title: "Interview loop", messages: 9, last: "Sam: Added a pairing exercise." }],
  },
];

const counters = {};
const nextId = (prefix) => `${prefix}${(counters[prefix] = (counters[prefix] ?? 0) + 1)}`;

const state = {
  projects: seed.map((p) => ({
    id: nextId("p"),
    name: p.name,
    color: p.color,
    tasks: p.tasks.map((t) => ({ id: nextId("t"), ...t, tags: [...t.tags] })),
    threads: p.threads.map((th) => ({ id: nextId("th"), archived: false, ...th })),
  })),
  openId: null,
  flash: null, // { kind, id } of the thing that just changed, for a highlight
};
state.openId = state.projects[0].id;

const listeners = new Set();
export const subscribe = (fn) => { listeners.add(fn); return () => listeners.delete(fn); };
function changed(flash = null) {
  state.flash = flash;
  for (const fn of listeners) fn();
}

export const personName = (initials) => people[initials] ?? initials;
export const projects = () => state.projects;
export const project = (id) => state.projects.find((p) => p.id === id);
export const openProject = () => project(state.openId) ?? null;
export const flash = () => state.flash;

export function open(id) {
  if (!project(id)) throw new Error(`no project ${id}`);
  state.openId = id;
  changed();
}

export function addTask(projectId, title, tags = []) {
  const p = project(projectId);
  if (!p) throw new Error(`no project ${projectId}`);
  const t = { id: nextId("t"), title, tags: [...tags], who: "AL", due: "", done: false };
  p.tasks.push(t);
  changed({ kind: "task", id: t.id });
  return t;
}

export function setDone(taskId, done) {
  for (const p of state.projects) {
    const t = p.tasks.find((x) => x.id === taskId);
    if (t) { t.done = done; changed({ kind: "task", id: t.id }); return t; }
  }
  throw new Error(`no task ${taskId}`);
}

export function renameProject(projectId, name) {
  const p = project(projectId);
  if (!p) throw new Error(`no project ${projectId}`);
  const before = p.name;
  p.name = name;
  changed({ kind: "project", id: p.id });
  return { from: before, to: name };
}

export function archiveThread(threadId) {
  for (const p of state.projects) {
    const th = p.threads.find((x) => x.id === threadId);
    if (th) { th.archived = true; changed({ kind: "thread", id: th.id }); return th; }
  }
  throw new Error(`no thread ${threadId}`);
}

export function deleteProject(projectId) {
  const i = state.projects.findIndex((p) => p.id === projectId);
  if (i < 0) throw new Error(`no project ${projectId}`);
  const [gone] = state.projects.splice(i, 1);
  if (state.openId === projectId) state.openId = state.projects[0]?.id ?? null;
  changed();
  return gone;
}

/** Every tag in use, with the number of tasks carrying it. */
export function tags() {
  const counts = new Map();
  for (const p of state.projects) for (const t of p.tasks) for (const tag of t.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([tag, tasks]) => ({ tag, tasks }));
}

export function removeTag(tag) {
  let n = 0;
  for (const p of state.projects) for (const t of p.tasks) {
    const before = t.tags.length;
    t.tags = t.tags.filter((x) => x !== tag);
    n += before - t.tags.length;
  }
  changed();
  return n;
}
