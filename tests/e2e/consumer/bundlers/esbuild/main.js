// esbuild leaves `new URL(..., import.meta.url)` alone, so the app imports the wasm itself:
// with `--loader:.wasm=file` the import is the emitted file's path, which init() is given.
// Resolving it against the bundle's own URL keeps it right wherever the page lives.
import init, { Coworkkit } from "coworkkit";
import wasmPath from "coworkkit/coworkkit_bg.wasm";
import { start } from "../story.js";

start("esbuild", () => init({ module_or_path: new URL(wasmPath, import.meta.url) }), Coworkkit);
