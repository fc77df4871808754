// coworkkit/react: the React entry of the package. Plain modern JS (no JSX, no build step), so
// it ships as written; its types are in react.d.ts next to it. It imports the wasm-bindgen glue
// by relative path, so it shares one wasm instance with `import ... from "coworkkit"`.
import {
  createContext,
  createElement,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import init, { Coworkkit } from "./coworkkit.js";

/**
 * Instantiates the wasm; resolves when `new Coworkkit(...)` may be called. wasm-bindgen's
 * `init()` shares one promise between concurrent callers, returns at once when the wasm is
 * there, and lets a later call retry after a failure, so this may be called any number of times.
 */
export function initCoworkkit() {
  return init().then(() => undefined);
}

// Latest-props refs are written after commit, never during render: a render React throws away
// must not decide what `run` calls. (useLayoutEffect warns during server rendering; there is
// nothing to call there anyway.)
const useCommitEffect = typeof document === "undefined" ? useEffect : useLayoutEffect;

// `undefined` = no provider above (a bug in the app); `null` = provider above, wasm still loading.
const Context = createContext(undefined);
Context.displayName = "Coworkkit";

// Module-level actions (`defineAction`) and the live instances they are registered on.
const moduleActions = new Set();
const liveInstances = new Set();

function registerModuleAction(entry, ck) {
  try {
    entry.disposers.set(ck, ck.useAction(entry.spec));
  } catch (error) {
    // A module-level action has no component to throw into; say so loudly and keep the rest.
    console.error(`coworkkit/react: defineAction("${entry.spec.name}") could not register:`, error);
  }
}

function attachInstance(ck) {
  liveInstances.add(ck);
  for (const entry of moduleActions) registerModuleAction(entry, ck);
}

function detachInstance(ck) {
  liveInstances.delete(ck);
  for (const entry of moduleActions) entry.disposers.delete(ck);
}

/**
 * A module-level action: registered on every mounted `<CoworkkitProvider>`'s instance (normally
 * there is one) from the moment that instance exists, and on providers mounted later. The
 * returned handle's `dispose()` unregisters it everywhere and stops it binding to new providers.
 */
export function defineAction(spec) {
  const entry = { spec, disposers: new Map() };
  moduleActions.add(entry);
  for (const ck of liveInstances) registerModuleAction(entry, ck);
  return Object.freeze({
    name: spec.name,
    dispose() {
      if (!moduleActions.delete(entry)) return;
      for (const dispose of entry.disposers.values()) dispose();
      entry.disposers.clear();
    },
  });
}

/**
 * Creates one `Coworkkit` instance for the tree below (after `init()`, which it calls itself)
 * and disposes it on unmount. Options are read once, when the instance is created; the function
 * props `onActionRecord` and `approver` always call the latest ones passed.
 */
export function CoworkkitProvider(props) {
  const latest = useRef(props);
  useCommitEffect(() => { latest.current = props; });
  // Survives StrictMode's simulated unmount/remount (React keeps refs across it).
  const holder = useRef({ ck: null, disposeTimer: 0 });
  const [ck, setCk] = useState(null);
  const [, setFailure] = useState(null);

  useEffect(() => {
    const h = holder.current;
    // StrictMode (and Fast Refresh) run cleanup then the effect again at once: the deferred
    // dispose below is cancelled and the same instance lives on.
    clearTimeout(h.disposeTimer);
    h.disposeTimer = 0;
    let active = true;
    if (h.ck === null) {
      initCoworkkit().then(() => {
        if (!active || h.ck !== null) return;
        // Every prop but `children` is an option; the two callbacks go through the ref.
        const options = { ...latest.current };
        delete options.children;
        h.ck = new Coworkkit({
          ...options,
          onActionRecord: (record) => latest.current.onActionRecord?.(record),
          approver: () => latest.current.approver?.(),
        });
        attachInstance(h.ck);
        setCk(h.ck);
      }).catch((error) => {
        // The wasm did not load or the options are invalid: throw it into the next render,
        // where the app's error boundary sees it.
        if (active) setFailure(() => { throw error; });
      });
    }
    return () => {
      active = false;
      h.disposeTimer = setTimeout(() => {
        h.disposeTimer = 0;
        if (h.ck === null) return;
        const gone = h.ck;
        h.ck = null;
        detachInstance(gone);
        gone.dispose();
        setCk(null);
      }, 0);
    };
  }, []);

  return createElement(Context.Provider, { value: ck }, props.children);
}

/** The provider's instance, or `null` while the wasm is loading. Throws outside a provider. */
export function useCoworkkit() {
  const ck = useContext(Context);
  if (ck === undefined) {
    throw new Error("coworkkit/react: useCoworkkit, useAction, usePending and useGrants need a <CoworkkitProvider> above them");
  }
  return ck;
}

// Objects that stand for themselves (a Standard Schema from zod or valibot, an `element`) are
// compared by identity; JSON data (a JSON Schema `input`) by content, so an inline
// `input: { ... }` literal does not re-register the action on every render.
const identities = new WeakMap();
let nextIdentity = 0;
function identity(object) {
  if (!identities.has(object)) identities.set(object, ++nextIdentity);
  return `#${identities.get(object)}`;
}
function inputKey(input) {
  if (input === undefined || input === null) return "";
  if (typeof input === "object" && "~standard" in input) return identity(input);
  return JSON.stringify(input);
}

/** What, when it changes, needs a fresh registration; everything else is read through a ref. */
function registrationKey(spec) {
  const element = spec.element;
  return JSON.stringify([
    spec.name, spec.description, spec.control ?? null, inputKey(spec.input),
    spec.inputJsonSchema ?? null, spec.approvers ?? null, spec.shareResult ?? null,
    spec.recordResult ?? null, spec.readOnly ?? null, spec.idempotent ?? null,
    spec.untrustedContent ?? null,
    typeof element === "object" && element !== null ? identity(element) : element ?? null,
    spec.operation ?? null,
    typeof spec.run === "function", typeof spec.confirmationSummary === "function",
  ]);
}

/**
 * Registers `spec` on the provider's instance while the component is mounted. `run` and
 * `confirmationSummary` always call the ones of the latest render; the action is registered
 * again only when its name, description, control, input or other declared fields change.
 */
export function useAction(spec) {
  const ck = useCoworkkit();
  const latest = useRef(spec);
  useCommitEffect(() => { latest.current = spec; });
  const key = registrationKey(spec);

  useEffect(() => {
    if (ck === null) return undefined;
    const s = latest.current;
    const stable = { ...s };
    if (typeof s.run === "function") stable.run = (args, ctx) => latest.current.run(args, ctx);
    if (typeof s.confirmationSummary === "function") {
      stable.confirmationSummary = (args) => latest.current.confirmationSummary?.(args);
    }
    return ck.useAction(stable);
    // `key` stands for the declared fields of the spec; `run`/`confirmationSummary` go through the ref.
  }, [ck, key]);
}

const IDLE = Object.freeze({ status: "idle" });
const PENDING = Object.freeze({ status: "pending" });
const READY = Object.freeze({ status: "ready" });

/** What, when it changes, needs a fresh exposure: the model context, the names, `exposedTo`. */
function exposureKey(options) {
  if (options === undefined || options === null) return "";
  const context = options.modelContext;
  return JSON.stringify([
    typeof context === "object" && context !== null ? identity(context) : null,
    options.actions ?? null, options.exposedTo ?? null,
  ]);
}

/**
 * Hands the provider's actions to the browser's own agent (WebMCP) while the component is
 * mounted: `ck.exposeToModelContext(options)` once the instance exists, disposed in the
 * effect's cleanup. Not later: React runs a commit's cleanups before its new effects, so a
 * component that replaces another exposing one in the same commit registers after the old
 * tools are gone (a deferred dispose would leave them, and the browser would refuse each name
 * as a duplicate). Under StrictMode the simulated unmount withdraws the first exposure, which
 * is no refusal, and the remount exposes again: each tool ends up registered once. A change of
 * `modelContext`, `actions` or `exposedTo` exposes afresh. Returns where the exposure stands:
 * `idle` while the wasm loads, `pending` until the browser accepted every tool, then `ready`,
 * or `error` with the `Error` (code `model_context_unavailable` where there is no WebMCP, code
 * `model_context_refused` when the browser refused a tool).
 */
export function useModelContext(options) {
  const ck = useCoworkkit();
  const latest = useRef(options);
  useCommitEffect(() => { latest.current = options; });
  const [state, setState] = useState(IDLE);
  const key = exposureKey(options);

  useEffect(() => {
    if (ck === null) return undefined;
    let exposure;
    try {
      exposure = ck.exposeToModelContext(latest.current);
    } catch (error) {
      setState(Object.freeze({ status: "error", error }));
      return undefined;
    }
    let live = true;
    setState(PENDING);
    exposure.ready.then(
      () => { if (live) setState(READY); },
      (error) => { if (live) setState(Object.freeze({ status: "error", error })); },
    );
    return () => {
      live = false;
      exposure.dispose();
    };
  }, [ck, key]);

  return ck === null ? IDLE : state;
}

const NO_PROPOSALS = Object.freeze([]);
const sameIds = (a, b) => a.length === b.length && a.every((p, i) => p.id === b[i].id);

/**
 * The hard proposals waiting for a person, for an app indicator ("2 actions waiting"); updates
 * on the `proposal` and `resolved` events. Empty while the wasm is loading.
 */
export function usePending() {
  const ck = useCoworkkit();
  const cache = useRef(NO_PROPOSALS);
  const subscribe = useRef(null);
  if (subscribe.current === null || subscribe.current.ck !== ck) {
    const fn = (notify) => {
      if (ck === null) return () => {};
      const offs = [ck.on("proposal", notify), ck.on("resolved", notify)];
      return () => { for (const off of offs) off(); };
    };
    fn.ck = ck;
    subscribe.current = fn;
  }
  // `pending()` builds a new array each call; keep the last one while the same ids wait, so
  // React sees a stable snapshot.
  const getSnapshot = () => {
    if (ck === null) return NO_PROPOSALS;
    const now = ck.pending();
    if (!sameIds(now, cache.current)) cache.current = now.length === 0 ? NO_PROPOSALS : Object.freeze(now);
    return cache.current;
  };
  return useSyncExternalStore(subscribe.current, getSnapshot, () => NO_PROPOSALS);
}

const NO_GRANTS = Object.freeze([]);
const sameUses = (a, b) => a.length === b.length && a.every((g, i) => g.id === b[i].id && g.uses === b[i].uses);

/**
 * The live grants (SPEC §12), for an app's own list of what the assistant may do without
 * asking; updates on the `grants` event (made, used, revoked, expired). Empty while the wasm is
 * loading. A grant is made with `useCoworkkit()?.grant(...)` inside a click handler.
 */
export function useGrants() {
  const ck = useCoworkkit();
  const cache = useRef(NO_GRANTS);
  const subscribe = useRef(null);
  if (subscribe.current === null || subscribe.current.ck !== ck) {
    const fn = (notify) => (ck === null ? () => {} : ck.on("grants", notify));
    fn.ck = ck;
    subscribe.current = fn;
  }
  // `grants()` builds a new array each call; keep the last one while the same grants stand at
  // the same uses, so React sees a stable snapshot.
  const getSnapshot = () => {
    if (ck === null) return NO_GRANTS;
    const now = ck.grants();
    if (!sameUses(now, cache.current)) cache.current = now.length === 0 ? NO_GRANTS : now;
    return cache.current;
  };
  return useSyncExternalStore(subscribe.current, getSnapshot, () => NO_GRANTS);
}
