// Types of `coworkkit/inline` (inline.js). Hand-written: the SDK's own types come from the
// wasm-bindgen declarations next to this file, which it re-exports whole.
import type { InitOutput } from "./coworkkit.js";

export * from "./coworkkit.js";

/**
 * Instantiates the wasm from the bytes this module carries (gzip-compressed, decompressed by the
 * browser's `DecompressionStream`): no request, no asset for a bundler to emit. Call it once
 * before the first `new Coworkkit(...)`; concurrent and later calls share the one
 * instantiation, and so does `coworkkit/react`'s provider when this ran first.
 */
export default function init(): Promise<InitOutput>;
