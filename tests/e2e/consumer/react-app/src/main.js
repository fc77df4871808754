// A small React app that uses the packed `coworkkit` the way an app would: no JSX (so the
// consumer needs no React plugin), StrictMode around everything, the package from npm.
// It exposes what the consumer test checks on `window`.
import { StrictMode, createElement as h, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { Coworkkit } from "coworkkit";
import { CoworkkitProvider, defineAction, useAction, useCoworkkit, useGrants, useModelContext, usePending } from "coworkkit/react";

window.records = [];
window.runs = [];
window.registrations = [];
window.unregistrations = [];
window.instances = new Set();

// Count registrations where they happen: the root entry's class, which coworkkit/react must
// share (one module, one wasm instance) for this patch to see them.
const register = Coworkkit.prototype.useAction;
Coworkkit.prototype.useAction = function (spec) {
  window.registrations.push(spec.name);
  const dispose = register.call(this, spec);
  return () => { window.unregistrations.push(spec.name); dispose(); };
};

defineAction({ name: "ping", description: "Answers pong.", control: "open", run: () => "pong" });
defineAction({ name: "archive", description: "Archive a thread.", control: "soft", run: () => "archived" });

function DeleteProject({ version }) {
  useAction({
    name: "deleteProject",
    description: "Permanently delete a project.",
    control: "hard",
    // A fresh literal every render: it must not re-register the action.
    input: { type: "object", properties: { projectId: { type: "string" } }, required: ["projectId"] },
    confirmationSummary: (args) => `Delete ${args.projectId}? (render ${version})`,
    run: (args) => {
      window.runs.push({ projectId: args.projectId, version });
      return { deleted: args.projectId, version };
    },
  });
  return h("p", { id: "danger" }, `deleteProject is available (render ${version})`);
}

// Two components that each hand the provider's actions to the browser's agent (WebMCP), so a
// swap unmounts one and mounts the other in the same commit.
const stateText = (state) => state.status + (state.status === "error" ? `:${state.error.code}` : "");
function AgentAccess() {
  const state = useModelContext();
  return h("output", { id: "mc-state" }, stateText(state));
}
function AgentAccessToo() {
  const state = useModelContext();
  return h("output", { id: "mc-state" }, `too ${stateText(state)}`);
}

function PendingIndicator() {
  const pending = usePending();
  return h("output", { id: "pending" }, String(pending.length));
}

// SPEC §12: a button that makes a grant in its click, and the live grants as the hook sees them.
function Grants() {
  const ck = useCoworkkit();
  const grants = useGrants();
  return h("div", null,
    h("button", { id: "allow", type: "button", onClick: () => { window.granted = ck?.grant("archive", { ttlMs: 60_000, maxUses: 5 }); } }, "Allow archiving"),
    h("output", { id: "grants" }, grants.map((g) => `${g.action}:${g.uses}`).join(",")));
}

function Probe() {
  const ck = useCoworkkit();
  useEffect(() => {
    if (ck === null) return;
    window.ck = ck;
    window.instances.add(ck);
    window.ready = true;
  }, [ck]);
  return null;
}

function App() {
  const [provider, setProvider] = useState(true);
  const [mounted, setMounted] = useState(false);
  const [version, setVersion] = useState(0);
  const [agent, setAgent] = useState(null); // null | "one" | "two"
  const button = (id, onClick) => h("button", { id, type: "button", onClick }, id);
  return h("main", null,
    button("mount", () => setMounted(true)),
    button("unmount", () => setMounted(false)),
    button("bump", () => setVersion((v) => v + 1)),
    button("drop-provider", () => setProvider(false)),
    button("expose", () => setAgent("one")),
    button("swap-exposer", () => setAgent((a) => (a === "one" ? "two" : "one"))),
    button("unexpose", () => setAgent(null)),
    provider && h(CoworkkitProvider, { onActionRecord: (record) => window.records.push(record) },
      h(Probe),
      h(PendingIndicator),
      h(Grants),
      mounted && h(DeleteProject, { version }),
      agent === "one" && h(AgentAccess),
      agent === "two" && h(AgentAccessToo),
    ),
  );
}

createRoot(document.getElementById("root")).render(h(StrictMode, null, h(App)));
