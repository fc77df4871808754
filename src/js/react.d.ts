// Types of `coworkkit/react` (react.js). Hand-written; the SDK's own types come from the
// wasm-bindgen declarations next to this file.
import type { ReactElement, ReactNode } from "react";
import type {
  ActionHandle,
  ActionSpec,
  Coworkkit,
  CoworkkitOptions,
  ExposeOptions,
  Grant,
  Json,
  Proposal,
} from "./coworkkit.js";

export type { ActionHandle, ActionSpec, Coworkkit, CoworkkitOptions, ExposeOptions, Grant, Proposal };

/** Where `useModelContext`'s exposure stands. */
export type ModelContextState =
  | { readonly status: "idle" | "pending" | "ready" }
  | { readonly status: "error"; readonly error: Error & { code?: string } };

/**
 * The instance options as props, plus the tree that may use the instance. Options are read
 * once, when the instance is created; `onActionRecord` and `approver` always call the latest.
 */
export interface CoworkkitProviderProps extends CoworkkitOptions {
  children?: ReactNode;
}

/**
 * Instantiates the wasm (calling `init()` itself), creates one `Coworkkit` for the tree below,
 * StrictMode-safe, and disposes it on unmount (settling waiting cards as cancelled).
 */
export function CoworkkitProvider(props: CoworkkitProviderProps): ReactElement;

/**
 * Registers `spec` while the calling component is mounted. `run` and `confirmationSummary`
 * always call the latest render's functions; the action is registered again only when a
 * declared field (name, description, control, input, approvers, …) changes.
 */
export function useAction<A = { [key: string]: Json }, R = unknown>(spec: ActionSpec<A, R>): void;

/** The provider's instance; `null` while the wasm is loading. Throws outside a provider. */
export function useCoworkkit(): Coworkkit | null;

/**
 * Hands the provider's actions to the browser's own agent (WebMCP) while the calling component
 * is mounted; StrictMode-safe. `idle` while the wasm loads, `pending` until every tool was
 * accepted, then `ready`; `error` (code `model_context_unavailable` without WebMCP, or
 * `model_context_refused`) otherwise.
 */
export function useModelContext(options?: ExposeOptions): ModelContextState;

/** The hard proposals waiting for a person; empty while the wasm is loading. */
export function usePending(): readonly Proposal[];

/**
 * The live grants (SPEC §12), updated when one is made, used, revoked or expires; empty while
 * the wasm is loading. Make one with `useCoworkkit()?.grant(action, options)` in a click handler.
 */
export function useGrants(): readonly Grant[];

/**
 * A module-level action, registered on every mounted provider's instance (and on providers
 * mounted later) until its handle is disposed.
 */
export function defineAction<A = { [key: string]: Json }, R = unknown>(spec: ActionSpec<A, R>): ActionHandle;

/**
 * Instantiates the wasm (safe to call any number of times); the provider calls it. Call it
 * yourself only to start loading early, or before using the root entry's `Coworkkit` outside React.
 */
export function initCoworkkit(): Promise<void>;
