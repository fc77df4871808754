// Rollup with @web/rollup-plugin-import-meta-assets (rollup.config.mjs): the plugin emits the
// wasm that the package names with `new URL(..., import.meta.url)`, so `init()` needs nothing.
import init, { Coworkkit } from "coworkkit";
import { start } from "../story.js";

start("rollup", () => init(), Coworkkit);
