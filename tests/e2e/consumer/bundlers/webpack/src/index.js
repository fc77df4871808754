// webpack 5 with no config at all (src/index.js → dist/main.js): its asset modules emit the wasm
// that the package names with `new URL(..., import.meta.url)`, so `init()` needs nothing.
import init, { Coworkkit } from "coworkkit";
import { start } from "../../story.js";

start("webpack", () => init(), Coworkkit);
