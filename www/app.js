// A first, small demo: three actions at the three control levels, and buttons that play the
// agent. It imports the package exactly as an npm user would ("coworkkit", via the import map).
import init, { Coworkkit } from "coworkkit";

await init();

const projects = new Map([
  ["p1", { name: "Website redesign", tasks: 12 }],
  ["p2", { name: "Quarterly report", tasks: 4 }],
]);
const log = document.getElementById("log");
const say = (line) => { log.textContent = `${line}\n${log.textContent}`; };

function render() {
  const list = document.getElementById("projects");
  list.replaceChildren(...[...projects].map(([id, p]) => {
    const li = document.createElement("li");
    li.textContent = `${p.name} — ${p.tasks} tasks${p.archived ? " (archived)" : ""}`;
    li.dataset.id = id;
    return li;
  }));
}

const ck = new Coworkkit({
  approver: () => ({ id: "ann", role: "admin" }),
  onActionRecord: (r) => say(`record: ${r.action} ${r.control} → ${r.gate} (${r.outcome.status})`),
});

ck.defineAction({
  name: "listProjects",
  description: "List the projects with their task counts.",
  control: "open",
  readOnly: true,
  run: () => [...projects].map(([id, p]) => ({ id, ...p })),
});
ck.defineAction({
  name: "archiveProject",
  description: "Archive a project; it can be restored later.",
  control: "soft",
  input: { type: "object", properties: { projectId: { type: "string" } }, required: ["projectId"] },
  run: ({ projectId }) => { projects.get(projectId).archived = true; render(); return "archived"; },
});
ck.defineAction({
  name: "deleteProject",
  description: "Permanently delete a project and its tasks.",
  control: "hard",
  approvers: ["admin"],
  input: { type: "object", properties: { projectId: { type: "string" } }, required: ["projectId"] },
  confirmationSummary: ({ projectId }) => {
    const p = projects.get(projectId);
    return p ? `Delete ${p.name} and all its ${p.tasks} tasks? This can't be undone.` : `Delete ${projectId}?`;
  },
  run: ({ projectId }) => { projects.delete(projectId); render(); return "deleted"; },
});

for (const button of document.querySelectorAll("[data-call]")) {
  button.addEventListener("click", async () => {
    const name = button.dataset.call;
    const args = name === "listProjects" ? {} : { projectId: [...projects.keys()][0] ?? "p0" };
    let outcome = await ck.invoke({ name, args });
    say(`agent ← ${name}: ${JSON.stringify(outcome)}`);
    if (outcome.gate === "needs_confirmation" && confirm(`The agent asks: shall I ${name} ${args.projectId}?`)) {
      outcome = await ck.invoke({ name, args, confirmToken: outcome.confirmToken });
      say(`agent ← ${name} (with token): ${JSON.stringify(outcome)}`);
    }
  });
}
render();
window.ck = ck;
document.documentElement.dataset.ready = "true";
