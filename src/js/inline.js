// coworkkit/inline: the root entry's API with the wasm carried inside this module, for hosts
// that cannot emit the wasm as an asset (a bundler with no asset handling, a single-file
// build). Its types are in inline.d.ts next to it.
//
// scripts/build-pkg bundles this file with the wasm gzip-compressed and inlined as bytes
// (esbuild's binary loader, which embeds them as base64): compressed first because base64 of
// the raw wasm defeats the server's gzip (the bytes no longer line up), while base64 of
// already-compressed bytes costs little more once served with gzip. The browser decompresses
// them with DecompressionStream and compiles while it does, as it would a fetched wasm.
//
// It re-exports the glue "./coworkkit.js" (external to this bundle), so the class, the wasm
// instance and coworkkit/react are the same ones the root entry gives.
import initFromGlue from "./coworkkit.js";
import gzippedWasm from "./coworkkit_bg.wasm.gz";

export * from "./coworkkit.js";

/**
 * Instantiates the wasm from the bytes inlined here; no request is made. Like the root entry's
 * `init()`, concurrent and later calls share the one instantiation.
 */
export default function init() {
  const wasm = new Blob([gzippedWasm]).stream().pipeThrough(new DecompressionStream("gzip"));
  return initFromGlue({
    module_or_path: new Response(wasm, { headers: { "content-type": "application/wasm" } }),
  });
}
