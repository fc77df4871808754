// coworkkit/inline carries the wasm in its JS: a bundler with no asset handling at all (here
// esbuild with no loader) needs no recipe, and init() fetches nothing. The root entry's init(),
// which coworkkit/react's provider calls, is called beside it: it shares that instantiation,
// and so fetches nothing either.
import init, { Coworkkit } from "coworkkit/inline";
import initFromRoot from "coworkkit";
import { start } from "../story.js";

start("inline", () => Promise.all([init(), initFromRoot()]), Coworkkit);
