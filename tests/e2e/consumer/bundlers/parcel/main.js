// Parcel 2 with no config: it bundles what `new URL(..., import.meta.url)` names, so `init()`
// needs nothing.
import init, { Coworkkit } from "coworkkit";
import { start } from "../story.js";

start("parcel", () => init(), Coworkkit);
