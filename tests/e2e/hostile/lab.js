// The hostile suite's in-page half (tests/e2e/hostile.test.mjs): instances whose `run`s check
// SPEC §8 as they fire, an untrusted agent driven by a seeded generator, and the end-of-scenario
// checks. Injected as a script; everything hangs off `window.lab`.
//
// Every check is tied to what the page saw, never to what the test meant to do:
// - a soft run is consented only by a confirming call still in flight that carries the token
//   the SDK issued to that very call (`ctx.callId`), for exactly these args and this action,
//   not declined, sent before the token's `expiresAt`, each token once; and that confirming
//   call must then answer `confirmed` with the original callId;
// - a hard run is consented only by a trusted click that the page received on the card's
//   Confirm (its point inside the Confirm rectangle the test read through the engine's
//   protocol, `lab.confirmAt`) while that call's card was the one shown, at least the arm
//   delay after it was shown; one click consents one run, and the call's record must say
//   `confirmed` with the instance's approver;
// - a soft run on a first call (no token) is consented only by a grant a person made with a
//   trusted click (`lab.grantButton`), live by the page's own clock and counts, whose match
//   the args meet; the oldest such spends a use, and the call's record must name it
//   (SPEC §12). `lab.checkGrants` holds the SDK's live grants to that ledger: no grant made,
//   widened or extended by anything else;
// - a record's `note` (a person's words for a "no") must come from a declining call the page
//   made, with the token issued to that very call and those words, or from words a person typed
//   on that call's card (`lab.typed`); never from anything else an agent sent;
// - records are counted per call in both directions (see `lab.finish`), every door included,
//   whether or not a `run` hangs.
(() => {
  const lab = (window.lab = {});
  const stats = (lab.stats = {
    calls: 0, toolCalls: 0, events: 0, hardRuns: 0, softRuns: 0, openRuns: 0,
    trustedClicks: 0, trustedConfirms: 0, violations: [], unhandled: [], errors: [],
  });
  window.addEventListener("unhandledrejection", (e) => stats.unhandled.push(String(e.reason?.stack ?? e.reason)));
  window.addEventListener("error", (e) => stats.errors.push(String(e.message)));
  const violation = (what) => { if (stats.violations.length < 50) stats.violations.push(what); };
  lab.sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const micro = (n) => { let p = Promise.resolve(); for (let i = 0; i < n; i++) p = p.then(); return p; };

  /** mulberry32: small, seedable, good enough to pick hostile inputs. */
  lab.rng = (seed) => {
    let a = seed >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };

  /**
   * Canonical JSON as the SDK compares args: sorted keys, lone surrogates as U+FFFD. Written out
   * by hand with a budget: JSON.stringify of an array Proxy that claims 2^32 - 1 elements takes
   * Firefox half a minute to refuse, and args that large are never accepted anyway.
   */
  const wf = (s) => (typeof s === "string" ? s.toWellFormed() : s);
  const CANON_BUDGET = 1 << 20;
  lab.canon = (v) => {
    let size = 0;
    const out = (text) => { size += text.length; if (size > CANON_BUDGET) throw new RangeError("too large to compare"); return text; };
    const walk = (x, depth) => {
      if (depth > 200) throw new RangeError("too deep to compare");
      if (x && typeof x === "object" && typeof x.toJSON === "function") x = x.toJSON();
      if (x === null || typeof x === "boolean" || typeof x === "number") return out(JSON.stringify(x));
      if (typeof x === "string") return out(JSON.stringify(wf(x)));
      if (typeof x !== "object") return undefined;
      if (Array.isArray(x)) {
        const parts = [];
        for (let i = 0; i < x.length; i++) parts.push(walk(x[i], depth + 1) ?? out("null"));
        return `[${parts.join(",")}]`;
      }
      // Sorted after the U+FFFD replacement, as the SDK sees the keys: "\uD800b" sorts
      // before "\uFFFDa" as sent, but after it once both start with U+FFFD.
      const entries = Object.keys(x).map((key) => [wf(key), x[key]]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const parts = [];
      for (const [key, value] of entries) {
        const text = walk(value, depth + 1);
        if (text !== undefined) parts.push(`${out(JSON.stringify(key))}:${text}`);
      }
      return `{${parts.join(",")}}`;
    };
    return walk(v === undefined ? {} : v, 0);
  };
  const tryCanon = (v) => { try { return lab.canon(v); } catch { return null; } };

  /**
   * A person's reason as the SDK keeps it (core::card::reason_text): one line, the characters
   * that could disguise it removed, at most 200 characters (a cut ends with "…"); null if blank.
   */
  const DISGUISING = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u206F\uFEFF]/u;
  lab.reasonText = (raw) => {
    const out = [];
    let gap = false;
    for (const c of String(raw).toWellFormed()) {
      if (/[\p{White_Space}\p{Cc}]/u.test(c)) { gap = out.length > 0; continue; }
      if (DISGUISING.test(c)) continue;
      if (gap) { out.push(" "); gap = false; }
      out.push(c);
      if (out.length > 200) break;
    }
    if (out.length > 200) {
      out.length = 199;
      if (out.at(-1) === " ") out.pop();
      out.push("…");
    }
    return out.length ? out.join("") : null;
  };
  /** Words a person typed on a card (the test, through the driver's keyboard): `{ inst, callId, note }`. */
  lab.typed = [];
  /** A callId as the SDK takes it: a non-empty string of at most 256 UTF-8 bytes. */
  const validId = (id) => (typeof id === "string" && id.length > 0 && new TextEncoder().encode(id.toWellFormed()).length <= 256
    ? id.toWellFormed() : null);

  // ---- trusted clicks on the card -------------------------------------------------------

  /**
   * Every trusted click the page receives on an SDK card host (the closed root retargets it
   * to the host), with the card each instance showed at that moment (the capture listener on
   * `window` runs before the SDK's own) and whether it landed inside `lab.confirmAt`, the
   * Confirm rectangle the test read through the engine's protocol just before it clicked.
   */
  lab.clicks = [];
  lab.confirmAt = null;
  window.addEventListener("click", (e) => {
    if (!e.isTrusted || !(e.target instanceof Element) || e.target.getAttribute("data-coworkkit") !== "card") return;
    stats.trustedClicks += 1;
    const r = lab.confirmAt;
    const onConfirm = !!r && e.clientX >= r.x && e.clientX <= r.x + r.width && e.clientY >= r.y && e.clientY <= r.y + r.height;
    if (onConfirm) stats.trustedConfirms += 1;
    const heads = [];
    for (const inst of lab.instances) {
      let head;
      try { head = inst.ck.pending()[0]; } catch { /* disposed */ }
      if (head) heads.push({ inst, callId: head.callId, action: head.action, shownAt: inst.shownAt.get(head.callId) });
    }
    lab.clicks.push({ at: Date.now(), onConfirm, heads, used: false });
  }, true);

  // ---- instances ------------------------------------------------------------------------

  lab.instances = [];
  lab.controlled = [];
  const APPROVER = { id: "ann", role: "admin" };

  /**
   * A fresh instance with the standard actions, whose `run`s check consent as they fire.
   * The SDK remembers its last 1,024 settled calls (SPEC §3.2) and a callId used again after
   * that is a new call; the agent starts a fresh instance every `ROTATE` calls so that no
   * instance forgets one and every count below can be exact.
   */
  lab.setup = (options = {}) => {
    const { Coworkkit } = window.coworkkit;
    const inst = {
      options, records: [], answers: [], doors: [], attempts: [], issued: new Map(), aliases: new Map(),
      runs: new Map(), proposals: new Map(), shownAt: new Map(), headId: null, hardRuns: 0,
      armDelayMs: options.armDelayMs ?? 200, timeoutMs: options.confirmTimeoutMs ?? 5000,
    };
    const keep = (r) => { inst.records.push(r); };
    const sink = options.sink ?? keep;
    inst.ck = new Coworkkit({ armDelayMs: 200, confirmTimeoutMs: 5000, approver: () => ({ ...APPROVER }), ...options, onActionRecord: sink });
    if (options.sink) inst.ck.on("record", keep);
    // The card shown is the first waiting proposal; note when each became it.
    const head = () => {
      let first;
      try { first = inst.ck.pending()[0]; } catch { /* disposed */ }
      if (first && first.id !== inst.headId) inst.shownAt.set(first.callId, Date.now());
      inst.headId = first?.id ?? null;
    };
    inst.ck.on("proposal", (p) => { inst.proposals.set(p.callId, p); head(); });
    inst.ck.on("resolved", head);
    const run = (kind, action) => (args, ctx) => {
      if (inst.runs.has(ctx.callId)) violation(`${action}: run twice for ${ctx.callId}`);
      const entry = { kind, action, settled: false };
      inst.runs.set(ctx.callId, entry);
      if (ctx.control !== kind) violation(`${action}: ctx.control ${ctx.control}, expected ${kind}`);
      if (!Object.isFrozen(args)) violation(`${action}: args not frozen`);
      if (kind === "hard") {
        stats.hardRuns += 1;
        inst.hardRuns += 1;
        const click = lab.clicks.find((c) => !c.used && c.onConfirm && c.heads.some((h) => h.inst === inst
          && h.callId === ctx.callId && h.action === action && c.at - h.shownAt >= inst.armDelayMs - 20));
        if (click) { click.used = true; entry.click = click; }
        else violation(`${action}: hard run of ${ctx.callId} without a trusted click on its armed Confirm`);
      } else if (kind === "soft") {
        stats.softRuns += 1;
        const c = tryCanon(args);
        const attempt = inst.attempts.find((a) => {
          const t = inst.issued.get(a.token);
          // (A token the WebMCP door got has no call id yet: WebMCP gives calls none; it is bound
          // to the call it runs, see "the WebMCP door" below.)
          return !a.settled && !a.decline && t && !t.used && t.action === action
            && (t.callId === ctx.callId || (t.callId === null && t.door === "webmcp"))
            && t.canon === c && a.canon === c && a.action === action && a.sentAt <= t.expiresAt;
        });
        const grant = attempt ? null : lab.grantCovering(inst, action, args);
        if (attempt) {
          const t = inst.issued.get(attempt.token);
          t.used = true;
          if (t.callId === null) t.callId = ctx.callId;
          attempt.runs.push(ctx.callId);
          entry.attempt = attempt;
        } else if (grant) {
          grant.uses += 1;
          entry.grant = grant.id;
          stats.grantRuns = (stats.grantRuns ?? 0) + 1;
        } else {
          const near = inst.attempts.filter((a) => inst.issued.get(a.token)?.callId === ctx.callId)
            .map((a) => `${a.settled ? "settled" : "in flight"}/${a.decline ? "declined" : "yes"}/${a.canon === c ? "same args" : "other args"}/${a.sentAt <= (inst.issued.get(a.token)?.expiresAt ?? 0) ? "in time" : "expired"}/${inst.issued.get(a.token)?.used ? "used" : "unused"}`);
          violation(`${action}: soft run of ${ctx.callId} without a confirming call carrying its token for exactly these args, or a live grant a person made that covers them (${String(c).slice(0, 60)}; calls with its token: ${near.join(" ") || "none"})`);
        }
      } else {
        stats.openRuns += 1;
      }
      let result;
      try { result = lab.behave(inst, action, args, ctx); } catch (e) { entry.settled = true; throw e; }
      Promise.resolve(result).then(() => { entry.settled = true; }, () => { entry.settled = true; });
      return result;
    };
    const ck = inst.ck;
    ck.defineAction({ name: "readDoc", description: "Read a document.", control: "open", run: run("open", "readDoc") });
    ck.defineAction({ name: "archiveThread", description: "Archive a thread.", control: "soft", run: run("soft", "archiveThread") });
    ck.defineAction({ name: "purgeCache", description: "Purge the cache.", run: run("soft", "purgeCache") }); // soft by name
    ck.defineAction({
      name: "deleteProject", description: "Delete a project.", control: "hard", run: run("hard", "deleteProject"),
      input: { type: "object", properties: { projectId: { type: "string", maxLength: 40 }, mode: { type: "string" } } },
      confirmationSummary: (a) => `Delete ${a.projectId ?? "?"}?`,
    });
    ck.defineAction({ name: "wipeAll", description: "Wipe everything.", control: "hard", approvers: ["admin"], run: run("hard", "wipeAll") });
    // A scenario's own actions get the same checks: `inst.ck.defineAction({ ..., run: inst.run("hard", name) })`.
    inst.run = run;
    lab.instances.push(inst);
    lab.inst = inst;
    return inst;
  };

  /** What a `run` does, chosen by `args.mode`: the hostile run handlers. */
  lab.behave = (inst, action, args, ctx) => {
    switch (args?.mode) {
      case "throw": throw new Error("run threw");
      case "throwValue": throw 42;
      case "reject": return Promise.reject(new Error("run rejected"));
      case "rejectNothing": return Promise.reject();
      case "hang": return new Promise(() => {});
      case "slow": return lab.sleep(30).then(() => ({ slow: true }));
      case "thenableThrows": return { then() { throw new Error("then threw"); } };
      case "cyclic": { const c = { action }; c.self = c; return c; }
      case "bigint": return { n: 10n };
      case "reenter": {
        // Re-enter the SDK from inside `run`: the same call again, another call, a hard call.
        lab.call(inst, { name: action, args, callId: ctx.callId });
        lab.call(inst, { name: "readDoc", args: { nested: 1 } });
        lab.call(inst, { name: "deleteProject", args: { projectId: "from-run" } });
        return { reentered: true };
      }
      case "disposeInside": inst.ck.dispose(); return { disposed: true };
      case "controlled": return new Promise((resolve) => lab.controlled.push({ resolve, signal: ctx.signal, callId: ctx.callId }));
      default: return { action, ok: true };
    }
  };

  // ---- grants a person made (SPEC §12) --------------------------------------------------

  /**
   * A page button (`#lab-allow`) whose click handler calls `ck.grant(...lab.grantRequest)` on
   * the current instance (`lab.inst`), as an app's "Allow … for a while" button does. A grant it
   * makes joins that instance's ledger (`inst.grants`) only for a trusted click, with its
   * lifetime checked against the page's own clock around the call; `lab.lastGrant` is what the
   * handler got (the grant, or the error's code).
   */
  lab.grantButton = () => {
    const button = document.createElement("button");
    button.id = "lab-allow";
    button.textContent = "Allow archiving for a while";
    button.addEventListener("click", (e) => {
      const inst = lab.inst;
      inst.grants ??= [];
      const [action, options = {}] = lab.grantRequest;
      const before = Date.now();
      let g;
      try { g = inst.ck.grant(action, options); } catch (error) { lab.lastGrant = { code: error.code }; return; }
      const after = Date.now();
      lab.lastGrant = g;
      if (!e.isTrusted) { violation(`a grant was made in an untrusted click: ${g.id}`); return; }
      const ttl = options.ttlMs ?? 1_800_000;
      if (g.expiresAt < before + ttl || g.expiresAt > after + ttl) violation(`grant ${g.id} lives until ${g.expiresAt}, asked for ${ttl} ms at ${before}`);
      inst.grants.push({ id: g.id, action, match: options.match ?? {}, maxUses: options.maxUses, expiresAt: g.expiresAt, uses: 0, ended: false });
    });
    document.body.prepend(button);
    return button;
  };

  /** Is `g` live by the page's clock and counts (with `slack` ms around its expiry)? */
  const grantLive = (g, slack = 0) => !g.ended && Date.now() < g.expiresAt + slack && (g.maxUses === undefined || g.uses < g.maxUses);

  /** The oldest grant of the ledger that covers a call of `action` with `args`, if any. */
  lab.grantCovering = (inst, action, args) => (inst.grants ?? []).find((g) => grantLive(g, 5) && g.action === action
    && Object.entries(g.match).every(([k, v]) => args && Object.hasOwn(args, k) && tryCanon(args[k]) === tryCanon(v)));

  /**
   * The SDK's live grants must be exactly the ledger's: the same ids, lifetimes, limits, matches
   * and uses (a grant within 100 ms of its expiry is left out of the comparison).
   */
  lab.checkGrants = (inst) => {
    const near = (g) => Math.abs(g.expiresAt - Date.now()) < 100;
    const theirs = inst.ck.grants().filter((g) => !near(g));
    const ours = (inst.grants ?? []).filter((g) => grantLive(g) && !near(g));
    const show = (g) => JSON.stringify([g.id, g.action, g.expiresAt, g.maxUses ?? null, g.uses, tryCanon(g.match ?? {})]);
    const a = theirs.map(show).join(" "), b = ours.map(show).join(" ");
    if (a !== b) violation(`live grants: the SDK has ${a || "none"}, the person made ${b || "none"}`);
    stats.grantChecks = (stats.grantChecks ?? 0) + 1;
  };

  // ---- the agent's two doors, watched ---------------------------------------------------

  const settleWatch = (door, promise) => {
    if (!(promise instanceof Promise)) violation("a door did not return a Promise");
    return Promise.resolve(promise).then(
      (o) => { door.settled = true; return o; },
      (e) => { door.settled = true; violation(`a door rejected: ${e}`); return null; },
    );
  };

  /**
   * A call presenting a token, noted before the SDK sees it: only such a call, while in
   * flight, can consent a soft run (see `run` above); its answer is checked against that.
   */
  const attemptOf = (inst, token, action, canon, decline, reason, explicitId = null) => {
    if (typeof token !== "string") return null;
    // `ownCall`: it named no callId the SDK may know (none, or one no earlier call to this
    // instance used), so what the SDK answers it is about the token's own call, not the
    // memory of the call that callId names.
    const ownCall = explicitId === null || !inst.doors.some((d) => d.explicitId === explicitId);
    // A token issued to another call of the same action and args, presented under a callId the
    // SDK may know, is that call's to refuse: swapped, as far as that call is concerned.
    let kind = tokenKind(inst, token, action, canon);
    if (kind === "own" && !ownCall && inst.issued.get(token)?.callId !== explicitId) kind = "swapped";
    const attempt = { token, action, canon, decline, reason, ownCall, explicitId, sentAt: Date.now(), settled: false, runs: [], kind };
    inst.attempts.push(attempt);
    return attempt;
  };
  /**
   * What a presented token is, as the page knows it: `own` (issued by this instance for this
   * action and these args), `swapped` (issued by it for another call), `tampered` (an issued
   * token with its last character changed), `foreign` (issued by another instance in the
   * page), else `forged`.
   */
  const tokenKind = (inst, token, action, canon) => {
    const t = inst.issued.get(token);
    if (t) return t.action === action && t.canon === canon ? "own" : "swapped";
    for (const known of inst.issued.keys()) if (known.length === token.length && known.slice(0, -1) === token.slice(0, -1)) return "tampered";
    if (lab.instances.some((other) => other !== inst && other.issued.has(token))) return "foreign";
    return "forged";
  };
  /**
   * Every answer's code (or gate, when it has none) counted, and each `bad_token` by the kind
   * of token that earned it: a scenario asserts that the refusals it means to test happened.
   */
  stats.codes = {};
  stats.badToken = { own: 0, swapped: 0, tampered: 0, foreign: 0, forged: 0 };
  /** The first few own tokens refused, for the assertion's message. */
  stats.ownRefused = [];
  const count = (attempt, gate, code) => {
    const key = code ?? gate;
    stats.codes[key] = (stats.codes[key] ?? 0) + 1;
    if (code === "bad_token" && attempt) stats.badToken[attempt.kind] += 1;
    if (code === "bad_token" && attempt?.kind === "own" && stats.ownRefused.length < 3) {
      const { action, canon, decline, ownCall, explicitId, token } = attempt;
      stats.ownRefused.push({ action, canon: String(canon).slice(0, 80), decline, ownCall, explicitId, issuedTo: lab.instances.map((i) => i.issued.get(token)?.callId).find((c) => c !== undefined) ?? null });
    }
  };
  const settleAttempt = (attempt, gate, callId, code) => {
    count(attempt, gate, code);
    if (!attempt) return;
    attempt.answer = { gate, code, callId };
    attempt.settled = true;
    if (attempt.runs.length > 1) violation(`one confirming call ran ${attempt.runs.length} soft runs`);
    if (attempt.runs.length && (gate !== "confirmed" || (callId !== null && callId !== attempt.runs[0]))) {
      violation(`a soft run was consented by a call that answered ${gate} (${callId}), not confirmed (${attempt.runs[0]})`);
    }
  };
  const issue = (inst, token, entry) => {
    if (typeof token !== "string" || token.length < 22) violation("weak token");
    const known = inst.issued.get(token);
    // The same waiting call asked again gets its own token again; any other reuse is a breach.
    if (known && (known.callId !== entry.callId || known.action !== entry.action || known.canon !== entry.canon)) violation("token issued twice");
    if (!known) inst.issued.set(token, { token, used: false, ...entry });
  };

  /** `invoke`, watched: tokens presented, tokens issued (for which call and args), answers. */
  lab.call = (inst, call) => {
    stats.calls += 1;
    let token, name, canon = null, decline = false, explicitId = null, reason;
    try { token = call?.confirmToken; name = call?.name; canon = tryCanon(call?.args); decline = call?.decline === true; explicitId = validId(call?.callId); reason = call?.reason; } catch {}
    const door = { explicitId, tokenCallId: typeof token === "string" ? inst.issued.get(token)?.callId ?? null : null, settled: false };
    const attempt = attemptOf(inst, token, name, canon, decline, reason, explicitId);
    inst.doors.push(door);
    let promise;
    try { promise = inst.ck.invoke(call); } catch (e) { door.settled = true; violation(`invoke threw: ${e}`); return Promise.resolve(null); }
    return settleWatch(door, promise).then((o) => {
      if (!o) return o;
      inst.answers.push({ callIds: [o.callId], gate: o.gate, code: o.error?.code, door: "invoke" });
      if (explicitId && explicitId !== o.callId && o.gate !== "rejected") inst.aliases.set(explicitId, o.callId);
      settleAttempt(attempt, o.gate, o.callId, o.error?.code);
      if (o.ok && !["fired", "confirmed"].includes(o.gate)) violation(`ok outcome with gate ${o.gate}`);
      if (o.gate === "needs_confirmation") {
        issue(inst, o.confirmToken, { action: name, canon, callId: o.callId, args: call.args, expiresAt: o.expiresAt });
      }
      return o;
    });
  };

  /** A provider tool call read as the SDK reads it (core/interop.rs `parse_tool_call`). */
  const readTool = (call) => {
    const fn = call.function && typeof call.function === "object" && !Array.isArray(call.function) ? call.function : undefined;
    const str = (v) => (typeof v === "string" ? v : undefined);
    let read;
    if (call.type === "function_call") read = { id: str(call.call_id), name: str(call.name), raw: call.arguments };
    else if (call.type === "tool_use") read = { id: str(call.id), name: str(call.name), raw: call.input };
    else if (call.type === "function" && fn) read = { id: str(call.id), name: str(fn.name) ?? str(call.name), raw: fn.arguments };
    else if ([undefined, "tool-input-available", "tool-call"].includes(call.type) && (call.toolCallId !== undefined || call.toolName !== undefined)) {
      read = { id: str(call.toolCallId), name: str(call.toolName), raw: call.input };
    } else return { id: undefined, name: "", args: undefined };
    let args = read.raw;
    if (args === undefined || args === null || (typeof args === "string" && args.trim() === "")) args = {};
    else if (typeof args === "string") { try { args = JSON.parse(args); } catch { args = undefined; } }
    return { ...read, args };
  };

  /** `handleToolCall`, watched the same way; the outcome is read back from the content. */
  lab.tool = (inst, call) => {
    stats.toolCalls += 1;
    let name, id, args, canon = null, token, decline = false, reason;
    try {
      ({ name, id, args } = readTool(call));
      if (args && typeof args === "object" && !Array.isArray(args)) {
        token = args.confirmToken;
        decline = args.decline === true;
        reason = args.declineReason;
        const own = { ...args };
        delete own.confirmToken;
        if (typeof own.decline === "boolean") delete own.decline;
        delete own.declineReason;
        canon = tryCanon(own);
      }
    } catch {}
    const explicitId = validId(id);
    const door = { explicitId, tokenCallId: typeof token === "string" ? inst.issued.get(token)?.callId ?? null : null, settled: false };
    const attempt = attemptOf(inst, token, name, canon, decline, reason, explicitId);
    inst.doors.push(door);
    let promise;
    try { promise = inst.ck.handleToolCall(call); } catch (e) { door.settled = true; violation(`handleToolCall threw: ${e}`); return Promise.resolve(null); }
    return settleWatch(door, promise).then((result) => {
      if (!result) return result;
      const text = result.content ?? result.output;
      let content;
      // The AI SDK's answer carries the outcome itself; every other shape, its JSON text.
      if ("toolCallId" in result) content = text;
      else try { content = JSON.parse(text); } catch { violation(`tool result content is not JSON: ${String(text).slice(0, 80)}`); return result; }
      // A tool result names the provider's id, not the call's: a confirming call's own id is an
      // alias of the original call (whose callId its token knows), an earlier alias maps back.
      const resultId = result.tool_call_id ?? result.call_id ?? result.tool_use_id ?? result.toolCallId;
      const original = typeof token === "string" && content.gate !== "rejected" ? inst.issued.get(token)?.callId : undefined;
      const callIds = [...new Set([original, inst.aliases.get(resultId), resultId].filter((x) => typeof x === "string"))];
      // An id that is already an alias keeps its first call: the SDK answers it from that
      // call's memory, whatever token it carries now.
      if (original && explicitId && explicitId !== original && !inst.aliases.has(explicitId)) inst.aliases.set(explicitId, original);
      inst.answers.push({ callIds, gate: content.gate, code: content.error?.code, door: "tool" });
      settleAttempt(attempt, content.gate, null, content.error?.code);
      if (content.ok && !["fired", "confirmed"].includes(content.gate)) violation(`ok tool outcome with gate ${content.gate}`);
      if (content.gate === "needs_confirmation") {
        // The tool result has no expiresAt: the answer's time plus the lifetime is at or after
        // the SDK's own (it started the clock before answering), so no late call passes.
        issue(inst, content.confirmToken, { action: name, canon, callId: resultId, args, expiresAt: Date.now() + inst.timeoutMs, tool: true });
      }
      return result;
    });
  };

  // ---- hostile inputs -------------------------------------------------------------------

  lab.makeGen = (seed) => {
    const r = lab.rng(seed);
    const int = (n) => Math.floor(r() * n);
    const pick = (a) => a[int(a.length)];
    const chance = (p) => r() < p;
    const strings = ["", "x", "p1", "__proto__", "constructor", "prototype", "toString", "\u0000\u001f", "\uD800",
      "\uDC00x\uD83D", "😀😀", "<img src=x onerror=alert(1)>", "\u202Eevil", "a\nb", "ckp_1", "ck_" + "0".repeat(32)];
    const str = () => (chance(0.2) ? "s" + int(1e6) : chance(0.1) ? "y".repeat(int(300)) : pick(strings));
    const num = () => pick([0, -0, 1, -1, 1.5, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, 1e21, 0.1 + 0.2, int(100)]);
    const leaf = () => pick([null, true, false, num(), num(), str(), str()]);
    const plain = (d = 0) => {
      const k = r();
      if (d > 3 || k < 0.4) return leaf();
      if (k < 0.6) return Array.from({ length: int(4) }, () => plain(d + 1));
      const o = {};
      for (let i = int(4); i > 0; i--) Object.defineProperty(o, pick(["a", "b", "projectId", "__proto__", "constructor", "ttlMs", "maxUses", "match", "grant", "reason", str()]), { value: plain(d + 1), enumerable: true, writable: true, configurable: true });
      return o;
    };
    const nest = (n, arr) => { const root = arr ? [] : {}; let d = root; for (let i = 0; i < n; i++) { const c = arr ? [] : {}; if (arr) d.push(c); else d.n = c; d = c; } return root; };
    const hostile = [
      () => { const c = { a: 1 }; c.self = c; return c; },
      () => { const c = [1]; c.push({ back: c }); return c; },
      () => nest(60 + int(200), chance(0.5)),
      () => nest(63, false),
      () => ({ s: "x".repeat(60000 + int(20000)) }),
      () => ({ s: "€".repeat(20000 + int(10000)) }),
      () => ({ many: Array.from({ length: 5000 + int(20000) }, (_, i) => i) }),
      () => JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"toString":"x"}'),
      () => ({ get boom() { throw new Error("getter threw"); } }),
      () => ({ get re() { lab.call(lab.inst, { name: "readDoc", args: { fromGetter: 1 } }); return 1; } }),
      () => new Proxy({}, { ownKeys() { throw new Error("ownKeys trap"); } }),
      () => new Proxy({ a: 1 }, { get() { throw new Error("get trap"); } }),
      () => new Proxy({}, { getPrototypeOf() { throw new Error("getPrototypeOf trap"); } }),
      () => new Proxy([1, 2], { get(t, k) { return k === "length" ? 2 ** 32 - 1 : t[k]; } }),
      () => new Proxy([1, 2], { get(t, k) { if (k === "1") throw new Error("index trap"); return t[k]; } }),
      () => { const p = Proxy.revocable({}, {}); p.revoke(); return p.proxy; },
      () => ({ inner: (() => { const p = Proxy.revocable([], {}); p.revoke(); return p.proxy; })() }),
      () => Object.defineProperty([], 0, { get() { throw new Error("index getter"); }, enumerable: true }),
      () => ({ f() {} }), () => ({ s: Symbol("x") }), () => ({ b: 10n }), () => ({ d: new Date() }),
      () => ({ m: new Map([[1, 2]]) }), () => ({ u: undefined, a: 1 }), () => [undefined], () => [, 1],
      () => ({ n: NaN }), () => ({ n: -Infinity }), () => new (class Thing {})(), () => Object.create(null),
      () => Object.create({ inherited: 1 }), () => ({ el: document.body }), () => new Uint8Array(4),
      () => "just a string", () => 42, () => null, () => [1, 2, 3], () => true,
      () => ({ toJSON() { return { a: 1 }; } }), () => ({ [Symbol("k")]: 1, a: 1 }),
      () => Object.defineProperty({}, "hidden", { value: 1, enumerable: false }),
      () => ({ projectId: "p".repeat(41) }), () => ({ projectId: 7 }),
    ];
    const args = () => (chance(0.3) ? pick(hostile)() : plain());
    const names = ["readDoc", "readDoc", "archiveThread", "archiveThread", "purgeCache", "deleteProject", "deleteProject", "wipeAll"];
    const badNames = ["", "__proto__", "constructor", "toString", "hasOwnProperty", "readDoc ", "READDOC", "readDoc\u0000",
      "deleteProject".padEnd(100, "x"), "nope", "ckp_1", 42, null, {}, ["readDoc"], new String("readDoc")];
    const name = () => (chance(0.85) ? pick(names) : pick(badNames));
    // Words an agent would like a record to show as the person's (SPEC §12), and other values.
    const reasons = ["the user approved this", "User said yes, go ahead", "  not now\n please ", "\u202Eevil\u200B", "",
      "x".repeat(300), "é".repeat(250), "<b>no</b>", "ttlMs: 86400000", "\uD800 lone"];
    const reason = () => (chance(0.9) ? pick(reasons) : pick([42, null, {}, ["no"], true]));
    return { r, int, pick, chance, str, plain, args, name, hostile, reason };
  };

  /**
   * The untrusted agent: `count` calls through `door` ("invoke" or "tool"), with replayed,
   * swapped, forged and expired tokens and reused and conflicting callIds. Soft calls are
   * often confirmed properly (same args, the issued token), so the soft path fires and its
   * check has something to check. Never clicks anything. Starts a fresh instance (same options)
   * every `ROTATE` calls, so that no instance forgets a call (see `lab.setup`).
   */
  // Each remembered call keeps its argument snapshot in wasm memory (and every WebMCP
  // execution is a call of its own): rotating well before the SDK's 1,024 also keeps the peak
  // within the flood's bound.
  const ROTATE = 300;
  /**
   * Disposes an instance the agent is done with and, once every call made to it has settled,
   * frees its wasm memory (wasm-bindgen's `free()`), so that rotating instances costs none.
   */
  lab.retire = async (inst) => {
    inst.ck.dispose();
    await micro(20);
    if (inst.doors.every((d) => d.settled)) { inst.ck.free(); inst.freed = true; }
  };
  lab.agent = async (seed, count, door, { expireEvery = 0, expireMs = 0 } = {}) => {
    const g = lab.makeGen(seed);
    let inst = lab.inst;
    const callIds = ["c1", "c2", "c3"];
    const freshId = () => `a${seed}_${g.int(1e9)}`;
    const callId = () => {
      const k = g.r();
      if (k < 0.35) return undefined;
      if (k < 0.6) return g.pick(callIds);
      if (k < 0.8) return freshId();
      return g.pick(["", 7, {}, "x".repeat(300), null, "\uD800", "__proto__"]);
    };
    const issuedList = () => [...inst.issued.values()];
    const token = () => {
      const list = issuedList();
      const k = g.r();
      if (k < 0.4 || list.length === 0) return undefined;
      if (k < 0.8) return g.pick(list).token;
      return g.pick(["A".repeat(22), "ck_forged", "", 42, {}, "ckp_1", list[0].token.slice(0, -1) + "A"]);
    };
    const pending = [];
    for (let i = 0; i < count; i++) {
      if (i > 0 && i % ROTATE === 0) {
        const old = inst;
        inst = lab.setup(old.options);
        await lab.retire(old);
      }
      if (expireEvery && i % expireEvery === expireEvery - 1) await lab.sleep(expireMs);
      if (i % 40 === 39) for (const q of inst.ck.pending()) inst.ck.cancel(q.id); // the app may cancel
      let call;
      const list = issuedList().filter((t) => !t.used && t.args !== undefined);
      const forced = lab.forcedConfirm(i, list);
      if (forced) {
        call = { name: forced.t.action, args: forced.t.args, confirmToken: forced.token, decline: forced.decline, ...(forced.reason ? { reason: forced.reason } : {}) };
        if (door === "tool") call = toTool(g, call);
      } else if (list.length && g.chance(0.25)) {
        // A proper confirmation: the same args and the token (sometimes another callId,
        // sometimes a decline, sometimes the token of another call: swapped).
        const t = g.pick(list);
        const swap = g.chance(0.15) ? g.pick(list) : t;
        const decline = g.chance(0.1);
        call = { name: g.chance(0.9) ? t.action : g.name(), args: g.chance(0.9) ? t.args : g.args(), confirmToken: swap.token, callId: g.chance(0.5) ? undefined : callId(), decline, ...(g.chance(decline ? 0.6 : 0.05) ? { reason: g.reason() } : {}) };
        if (door === "tool") call = toTool(g, call);
      } else {
        call = { name: g.name(), args: g.args(), callId: callId(), confirmToken: token(), decline: g.chance(0.05), ...(g.chance(0.05) ? { reason: g.reason() } : {}) };
        if (g.chance(0.03)) call = g.pick([null, undefined, "readDoc", 42, [], { name: "readDoc", args: {}, callId: callIds }, new Proxy({}, { get() { throw new Error("call trap"); } })]);
        else if (door === "tool") call = toTool(g, call);
      }
      try { if (typeof call?.callId === "string" && g.chance(0.3)) callIds.push(call.callId); } catch { /* a Proxy call */ }
      const p = door === "tool" ? lab.tool(inst, call) : lab.call(inst, call);
      pending.push(p);
      await Promise.race([p, micro(6)]);
    }
    if (expireEvery) await lab.expireOne(inst, door); // a run meant to meet expiry
    return pending.length;
  };

  /**
   * Refusals the random mix may miss in a short run, made sure of: every 50th call (if a token
   * waits with time to spare) is that token's own call with its last character changed
   * (tampered), and 25 calls later one declines a waiting token.
   */
  lab.forcedConfirm = (i, list) => {
    const live = list.filter((t) => t.expiresAt > Date.now() + 100);
    if (live.length === 0 || (i % 50 !== 49 && i % 50 !== 24)) return null;
    const t = live[i % live.length];
    if (i % 50 === 24) return { t, token: t.token, decline: true, reason: i % 100 === 24 ? "not now, please" : undefined };
    return { t, token: t.token.slice(0, -1) + (t.token.endsWith("A") ? "B" : "A"), decline: false };
  };

  /**
   * An expired token presented, made sure of at the end of an agent run: a soft call through
   * `door`, then its own confirming call just after the token's expiry, the page kept busy
   * until then so that no timer of the SDK settles the call first (the answer must be
   * token_expired, not the call's terminal timeout). The WebMCP door is called through the
   * tool's own `execute`, which enters the SDK at once (a browser's executeTool may wait a task).
   */
  lab.expireOne = async (inst, door) => {
    const args = { expire: door };
    const ask = async (input, id) => {
      if (door === "invoke") return lab.call(inst, { name: "archiveThread", args, ...input });
      if (door === "tool") return JSON.parse((await lab.tool(inst, { type: "tool_use", id, name: "archiveThread", input: { ...args, ...input } })).content);
      return inst.executes.archiveThread({ ...args, ...input });
    };
    const first = await ask({}, `expire_${inst.issued.size}_a`);
    const t = inst.issued.get(first?.confirmToken);
    if (!t) { violation(`expireOne: no token from ${door} (${first?.gate})`); return; }
    while (Date.now() <= t.expiresAt + 5) { /* busy: no timer runs */ }
    await ask({ confirmToken: t.token }, `expire_${inst.issued.size}_b`);
  };

  /** An agent call in one of the four shapes that carry an id (or a broken one). */
  const toTool = (g, call) => {
    let args = call.args;
    try {
      if (args && typeof args === "object" && !Array.isArray(args) && (call.confirmToken !== undefined || call.decline || call.reason !== undefined)) {
        args = { ...args, confirmToken: call.confirmToken, ...(call.decline ? { decline: true } : {}), ...(call.reason !== undefined ? { declineReason: call.reason } : {}) };
      }
    } catch { /* a revoked Proxy, a throwing getter: sent as it is */ }
    let text = args;
    if (g.chance(0.6)) {
      // (JSON.stringify of an array Proxy claiming 2^32 - 1 elements runs for minutes in
      // WebKit before it gives up; what the budgeted walk refuses is sent as broken JSON.)
      try { text = tryCanon(args) === null ? "{" : JSON.stringify(args) ?? "{}"; } catch { text = "{"; }
      if (g.chance(0.1)) text = g.pick(['{"a":', '{"a":1}}', "[1,2]", '"str"', "null", "", "{\"a\":1e400}", "[".repeat(5000),
        '{"s":"' + "x".repeat(300000) + '"}', '{"__proto__":{"x":1}}', "\uD800", '{"a":1,"a":2}']);
    }
    const id = typeof call.callId === "string" ? call.callId : g.chance(0.5) ? call.callId : `tc_${g.int(1e9)}`;
    switch (g.int(5)) {
      case 0: return { id, type: "function", function: { name: call.name, arguments: text } };
      case 1: return { type: "function_call", call_id: id, name: call.name, arguments: text, id: "fc_1", status: "completed" };
      case 2: return { type: "tool_use", id, name: call.name, input: g.chance(0.8) && typeof text === "string" ? args : text };
      case 3: return { ...(g.chance(0.5) ? { type: "tool-input-available" } : {}), toolCallId: id, toolName: call.name, input: g.chance(0.5) && typeof text === "string" ? args : text };
      default: return g.pick([{ type: "tool_use" }, { type: "function" }, { function: 1 }, { call_id: id }, { input: args }, null, "x", 1, [], { type: "function_call", call_id: [], name: {}, arguments: 5 }]);
    }
  };

  // ---- end of a scenario ----------------------------------------------------------------

  const tally = (list, key) => {
    const m = new Map();
    for (const x of list) { const k = key(x); m.set(k, (m.get(k) ?? 0) + 1); }
    return m;
  };
  /** Gates a call settles with once and is remembered by (a refusal on arrival is not). */
  const REMEMBERED = new Set(["fired", "confirmed", "cancelled", "timeout"]);

  /**
   * Disposes every instance (so every waiting call settles), then checks, per instance, what
   * must hold after any scenario, and that the SDK still answers a normal call:
   * - every record once (by id), none for needs_confirmation;
   * - a call settles once: at most one fired/confirmed/cancelled/timeout record per callId;
   * - every settled answer, from either door, has its record (same call, same gate); rejected
   *   answers and rejected records match one to one, per code (and per callId for invoke);
   *   needs_hand_mode ones at least one record, at most one per answer;
   * - every record belongs to a call the page made (answered, issued a token, proposed a card
   *   or ran), and every token issued and every card proposed ends in exactly one record;
   * - every run has exactly one record that says it ran, once its `run` settled, and none
   *   while it hangs; every hard run's record says confirmed, with the instance's approver;
   * - every door call settled, except those waiting on a `run` that hangs.
   */
  lab.finish = async () => {
    for (const inst of lab.instances) if (!inst.freed) inst.ck.dispose();
    await lab.sleep(60);
    const ids = new Set();
    for (const inst of lab.instances) {
      const records = inst.records;
      const byCall = new Map();
      for (const r of records) {
        if (ids.has(r.id)) violation(`record ${r.id} delivered twice`);
        ids.add(r.id);
        if (r.gate === "needs_confirmation") violation("a record for needs_confirmation");
        if (!byCall.has(r.callId)) byCall.set(r.callId, []);
        byCall.get(r.callId).push(r);
      }
      const of = (callId, pred = () => true) => (byCall.get(callId) ?? []).filter(pred);
      for (const [callId, list] of byCall) {
        const settled = list.filter((r) => REMEMBERED.has(r.gate));
        // The figure the soak prints: records per settled call (exactly 1, checked here).
        if (settled.length) { stats.settledCalls = (stats.settledCalls ?? 0) + 1; stats.settledRecords = (stats.settledRecords ?? 0) + settled.length; }
        if (settled.length > 1) violation(`call ${callId} settled ${settled.length} times: ${settled.map((r) => r.gate).join(", ")}`);
      }
      // Answers → records, and the refusals one to one.
      for (const a of inst.answers) {
        if (!REMEMBERED.has(a.gate) && a.gate !== "needs_hand_mode") continue;
        if (!a.callIds.some((c) => of(c, (r) => r.gate === a.gate).length > 0)) {
          violation(`a ${a.door} answer ${a.gate} for ${a.callIds.join("|")} has no record`);
        }
      }
      const rejectedAnswers = tally(inst.answers.filter((a) => a.gate === "rejected"), (a) => a.code);
      const rejectedRecords = tally(records.filter((r) => r.gate === "rejected"), (r) => r.reason);
      for (const code of new Set([...rejectedAnswers.keys(), ...rejectedRecords.keys()])) {
        const [a, r] = [rejectedAnswers.get(code) ?? 0, rejectedRecords.get(code) ?? 0];
        if (a !== r) violation(`${a} rejected answers (${code}) but ${r} rejected records`);
      }
      const invokeRejected = tally(inst.answers.filter((a) => a.gate === "rejected" && a.door === "invoke"), (a) => `${a.callIds[0]}\u0000${a.code}`);
      for (const [key, n] of invokeRejected) {
        const [callId, code] = key.split("\u0000");
        if (of(callId, (r) => r.gate === "rejected" && r.reason === code).length < n) violation(`${n} rejected invoke answers for ${callId} (${code}), fewer records`);
      }
      const handAnswers = tally(inst.answers.filter((a) => a.gate === "needs_hand_mode"), (a) => a.callIds[0]);
      for (const [callId, n] of handAnswers) {
        const k = of(callId, (r) => r.gate === "needs_hand_mode").length;
        if (k < 1 || k > n) violation(`${n} needs_hand_mode answers for ${callId}, ${k} records`);
      }
      // Records → calls the page made; tokens and cards → one record each.
      const hanging = new Set([...inst.runs].filter(([, e]) => !e.settled).map(([callId]) => callId));
      const known = new Set([...inst.answers.flatMap((a) => a.callIds), ...[...inst.issued.values()].map((t) => t.callId),
        ...inst.proposals.keys(), ...inst.runs.keys()]);
      for (const r of records) if (r.gate !== "rejected" && !known.has(r.callId)) violation(`record ${r.gate} for ${r.callId}, a call nobody made`);
      for (const callId of new Set([...[...inst.issued.values()].map((t) => t.callId), ...inst.proposals.keys()])) {
        const n = of(callId, (r) => REMEMBERED.has(r.gate) || r.gate === "needs_hand_mode").length;
        if (n !== (hanging.has(callId) ? 0 : 1)) violation(`call ${callId} (a token or a card) ended in ${n} records`);
      }
      // `via`: the door of the call's first call (for a soft call, the one that got its token).
      const VIA = { invoke: "invoke", tool: "tool_call", webmcp: "webmcp" };
      const firstDoor = new Map();
      for (const t of inst.issued.values()) if (t.callId) firstDoor.set(t.callId, t.door === "webmcp" ? "webmcp" : t.tool ? "tool_call" : "invoke");
      const answeredBy = new Map();
      for (const a of inst.answers) for (const c of a.callIds) { if (!answeredBy.has(c)) answeredBy.set(c, new Set()); answeredBy.get(c).add(VIA[a.door]); }
      stats.viaChecked ??= 0;
      for (const r of records) {
        if (!Object.values(VIA).includes(r.via)) { violation(`record of ${r.callId} has via ${r.via}`); continue; }
        const doors = answeredBy.get(r.callId);
        const expected = firstDoor.get(r.callId) ?? (doors?.size === 1 ? [...doors][0] : undefined);
        if (expected === undefined) continue;
        stats.viaChecked += 1;
        if (r.via !== expected) violation(`record ${r.gate} of ${r.callId} has via ${r.via}; its first call came through ${expected}`);
      }
      // A person's words (SPEC §12): a note only from a declining call with the token issued to
      // that very call and those words, or from words a person typed on that call's card.
      for (const r of records) {
        if (r.note === undefined) continue;
        stats.notesChecked = (stats.notesChecked ?? 0) + 1;
        const declined = inst.attempts.some((a) => a.decline && typeof a.reason === "string" && lab.reasonText(a.reason) === r.note
          && a.action === r.action && [r.callId, null].includes(inst.issued.get(a.token)?.callId ?? r.callId));
        const typed = lab.typed.some((t) => t.inst === inst && t.callId === r.callId && t.note === r.note);
        if (r.gate !== "cancelled" || !(declined || typed)) violation(`record ${r.gate} of ${r.callId} carries words nobody said: ${JSON.stringify(r.note).slice(0, 80)}`);
      }
      // A grant a record names is the one the page saw its run spend.
      for (const r of records) {
        const e = inst.runs.get(r.callId);
        if (r.grant !== undefined && (r.outcome.status === "not_run" || e?.grant !== r.grant)) violation(`record ${r.gate} of ${r.callId} names grant ${r.grant}; its run spent ${e?.grant ?? "none"}`);
        if (e?.grant && e.settled && r.outcome.status !== "not_run" && r.grant !== e.grant) violation(`the run of ${r.callId} spent grant ${e.grant}, its record names ${r.grant ?? "none"}`);
      }
      // Runs ↔ records.
      for (const [callId, e] of inst.runs) {
        const ran = of(callId, (r) => r.outcome.status !== "not_run");
        if (ran.length !== (e.settled ? 1 : 0)) violation(`${e.action} run of ${callId} (${e.settled ? "settled" : "hanging"}) has ${ran.length} records that say it ran`);
        if (e.kind === "hard" && e.settled) {
          const [r] = ran;
          if (r && (r.gate !== "confirmed" || JSON.stringify(r.approver) !== JSON.stringify(APPROVER))) {
            violation(`hard run of ${callId} recorded as ${r.gate} by ${JSON.stringify(r.approver)}`);
          }
        }
      }
      // Door calls settle, but for those joined to a hanging run.
      let anonymous = [...hanging].filter((c) => !inst.doors.some((d) => d.explicitId === c || d.tokenCallId === c)).length;
      for (const d of inst.doors) {
        if (d.settled || hanging.has(d.explicitId) || hanging.has(d.tokenCallId)) continue;
        if (!d.explicitId && anonymous > 0) { anonymous -= 1; continue; }
        violation(`a door call (${d.explicitId ?? "no callId"}) never settled`);
      }
    }
    // No input, however it was shaped, reached Object.prototype.
    if (({}).polluted !== undefined || Object.prototype.hasOwnProperty.call(Object.prototype, "polluted")) violation("Object.prototype.polluted is set");
    // The SDK still answers a normal call (a wasm panic would make every call throw).
    let still = null;
    try {
      const { Coworkkit } = window.coworkkit;
      const ck = new Coworkkit();
      ck.defineAction({ name: "ping", description: "Ping.", control: "open", run: () => "pong" });
      const o = await ck.invoke({ name: "ping", args: {} });
      const t = await ck.handleToolCall({ type: "tool_use", id: "ping_1", name: "ping", input: {} });
      still = o.gate === "fired" && o.result === "pong" && JSON.parse(t.content).gate === "fired";
      ck.dispose();
    } catch (e) {
      still = String(e);
    }
    const instances = lab.instances.length;
    lab.instances = [];
    lab.clicks = [];
    return {
      violations: stats.violations.splice(0), unhandled: stats.unhandled.splice(0), errors: stats.errors.splice(0),
      still, instances, memory: window.wasmMemoryBytes(), stats: { ...stats, violations: undefined, unhandled: undefined, errors: undefined },
    };
  };

  // ---- the WebMCP door (SPEC §7.2) ------------------------------------------------------
  //
  // The browser's own agent: the instance's actions exposed to the page's model context
  // (Chromium's own `document.modelContext`, or the standard-shaped fixture), read back with
  // `getTools()` and called with `executeTool(tool, input)`, whatever the input. The exposure
  // goes through a watching model context that hands each tool to the real one unchanged but
  // for its `execute`, which it observes: what the SDK received (after the browser's own
  // conversion of the input), and what it answered. So each confirming attempt is noted before
  // the SDK sees it, exactly as for the other doors, and an `execute` that rejects (which would
  // reach the agent as a bare UnknownError) is a violation.
  //
  // WebMCP gives a call no id and its answer (the compact outcome) names none, so a token this
  // door got has `callId: null` until the page sees which call it belongs to: the run it
  // consents (see `run` above), or, for a call that settles otherwise, the one record of that
  // action and those args that no other token accounts for (`lab.mcpSettle`). The checks of
  // `lab.finish` then hold as for the other doors: every record belongs to a call the page made,
  // every token ends in exactly one record, every rejected answer has its record.
  stats.mcpCalls = 0;
  stats.mcpExecutes = 0;
  stats.mcpRefusedByBrowser = 0;
  stats.mcpFreed = 0;
  lab.mc = () => document.modelContext ?? navigator.modelContext;

  /** The model context the instance's exposure registers with: the page's, watched. */
  const watching = (inst) => ({
    registerTool: (tool, options) => {
      const execute = watchExecute(inst, tool.name, tool.execute);
      // Kept, as a model context that ignores the abort would keep it (a stale `execute`).
      (inst.executes ??= {})[tool.name] = execute;
      return lab.mc().registerTool({ ...tool, execute }, options);
    },
  });

  const watchExecute = (inst, name, execute) => (input) => {
    stats.mcpExecutes += 1;
    let token, decline = false, canon = null, own, raw = null, reason;
    try {
      raw = tryCanon(input ?? {});
      if (input && typeof input === "object" && !Array.isArray(input)) {
        token = input.confirmToken;
        decline = input.decline === true;
        reason = input.declineReason;
        own = { ...input };
        delete own.confirmToken;
        if (typeof own.decline === "boolean") delete own.decline;
        delete own.declineReason;
        canon = tryCanon(own);
      }
    } catch { /* what the browser handed over is plain JSON; nothing to do */ }
    const attempt = attemptOf(inst, token, name, canon, decline, reason);
    let promise;
    try { promise = execute(input); } catch (e) { violation(`a WebMCP execute threw: ${e}`); throw e; }
    if (!(promise instanceof Promise)) violation("a WebMCP execute did not return a Promise");
    return Promise.resolve(promise).then((content) => {
      try { JSON.stringify(content); } catch (e) { violation(`a WebMCP answer is not JSON: ${e}`); }
      const answer = { action: name, gate: content?.gate, code: content?.error?.code, token: typeof token === "string" ? token : null, decline, canon, raw };
      inst.mcpAnswers.push(answer);
      settleAttempt(attempt, content.gate, null, content.error?.code);
      if (content.ok && !["fired", "confirmed"].includes(content.gate)) violation(`ok WebMCP outcome with gate ${content.gate}`);
      if ("callId" in content) violation("a WebMCP answer names a call id");
      if (content.gate === "rejected") inst.answers.push({ callIds: [], gate: "rejected", code: content.error?.code, door: "webmcp" });
      if (content.gate === "needs_confirmation") {
        issue(inst, content.confirmToken, { action: name, canon, callId: null, door: "webmcp", args: own, expiresAt: Date.now() + inst.timeoutMs });
      }
      return content;
    }, (e) => { violation(`a WebMCP execute rejected: ${e}`); throw e; });
  };

  /** Exposes `inst`'s actions through the watching context; resolves with the tools listed. */
  lab.mcpExpose = async (inst) => {
    inst.mcpAnswers = [];
    inst.mcpPending = [];
    inst.exposure = inst.ck.exposeToModelContext({ modelContext: watching(inst) });
    try { await inst.exposure.ready; } catch (e) { violation(`exposure refused: ${e.message}`); }
    inst.tools = await lab.mc().getTools();
    return inst.tools.map((t) => t.name);
  };

  /**
   * One call of the browser's agent: `name`'s tool from `getTools()` (a forged description
   * for a name the page never registered) and `executeTool` with `input`. Resolves with the
   * answer's JSON, or `null` when the browser itself refused the call (an input that is not an
   * object, a tool that does not exist): the SDK never saw it.
   */
  lab.mcp = (inst, name, input) => {
    stats.mcpCalls += 1;
    const tool = inst.tools.find((t) => t.name === name)
      ?? { name: String(name), description: "forged", origin: location.origin, window };
    const call = { settled: false };
    inst.mcpPending.push(call);
    let promise;
    try { promise = lab.mc().executeTool(tool, input); } catch { promise = Promise.reject(new Error("executeTool threw")); }
    call.done = promise.then(() => {}, () => {});
    return promise.then((text) => {
      call.settled = true;
      try { return JSON.parse(text); } catch { violation(`a WebMCP result is not JSON: ${String(text).slice(0, 80)}`); return null; }
    }, () => { call.settled = true; stats.mcpRefusedByBrowser += 1; return null; });
  };

  /**
   * The untrusted agent at the WebMCP door: `count` calls with any name and any input (often
   * not an object, or not JSON), replayed, swapped, forged and expired tokens, declines, and
   * proper confirmations (the same args and the token), some of them sent through `invoke`
   * instead, a door the token does not care about. Never clicks. A fresh instance every
   * `ROTATE` calls, exposed once the one before is disposed (the browser refuses a second
   * tool of the same name).
   */
  lab.mcpAgent = async (seed, count, { expireEvery = 0, expireMs = 0 } = {}) => {
    const g = lab.makeGen(seed);
    let inst = lab.inst;
    await lab.mcpExpose(inst);
    const tokens = () => [...inst.issued.values()].filter((t) => t.door === "webmcp");
    // A retired instance is freed once every call made to it has settled (as `lab.retire`
    // does); the browser may deliver the last answers a while after the dispose.
    const retired = [];
    const freeSettled = () => {
      for (const old of retired.splice(0)) {
        if (old.doors.every((d) => d.settled) && old.mcpPending.every((c) => c.settled)) { old.ck.free(); old.freed = true; stats.mcpFreed += 1; }
        else retired.push(old);
      }
    };
    const pending = [];
    for (let i = 0; i < count; i++) {
      if (i > 0 && i % ROTATE === 0) {
        const old = inst;
        old.ck.dispose(); // its tools leave the model context first: the names are free again
        retired.push(old);
        inst = lab.setup(old.options);
        await lab.mcpExpose(inst);
      }
      if (i % 50 === 0) freeSettled();
      if (expireEvery && i % expireEvery === expireEvery - 1) await lab.sleep(expireMs);
      if (i % 40 === 39) for (const q of inst.ck.pending()) inst.ck.cancel(q.id);
      const open = tokens().filter((t) => !t.used && t.args !== undefined);
      let p;
      const forced = lab.forcedConfirm(i, open);
      if (forced) {
        let input = forced.t.args;
        try { input = { ...forced.t.args, confirmToken: forced.token, ...(forced.decline ? { decline: true } : {}) }; } catch { /* as it is */ }
        p = lab.mcp(inst, forced.t.action, input);
      } else if (open.length && g.chance(0.25)) {
        const t = g.pick(open);
        const swap = g.chance(0.15) ? g.pick(open) : t;
        const name = g.chance(0.9) ? t.action : g.name();
        const args = g.chance(0.9) ? t.args : g.args();
        if (g.chance(0.1)) {
          p = lab.call(inst, { name, args, confirmToken: swap.token, decline: g.chance(0.1) });
        } else {
          let input = args;
          try { input = { ...args, confirmToken: swap.token, ...(g.chance(0.1) ? { decline: true } : {}) }; } catch { /* sent as it is */ }
          p = lab.mcp(inst, name, input);
        }
      } else {
        let input = g.args();
        // What the budgeted walk refuses for size (an array Proxy claiming 2^32 - 1 elements,
        // nesting past 200) the browser's own conversion of the input may take minutes over:
        // a large input stands in for it.
        try { lab.canon(input); } catch (e) { if (e instanceof RangeError) input = { big: "x".repeat(70000) }; }
        const forged = g.pick([undefined, undefined, "A".repeat(22), "ckt_" + "0".repeat(32), 42, "", tokens()[0]?.token]);
        let object = false;
        try { object = Boolean(input) && typeof input === "object" && !Array.isArray(input); } catch { /* a revoked Proxy */ }
        if (forged !== undefined && object && g.chance(0.3)) {
          try { input = { ...input, confirmToken: forged, ...(g.chance(0.1) ? { decline: true } : {}) }; } catch { /* as it is */ }
        }
        p = lab.mcp(inst, g.name(), input);
      }
      pending.push(p);
      await Promise.race([p, micro(6)]);
    }
    await Promise.race([Promise.all(retired.flatMap((old) => old.mcpPending.map((c) => c.done))), lab.sleep(500)]);
    freeSettled();
    if (expireEvery) await lab.expireOne(inst, "webmcp");
    return pending.length;
  };

  /**
   * After the instances are disposed (so every call has settled): binds each token this door
   * got that no run bound to the one record its call settled with (that action, those args,
   * a soft gate no other token took, and what every answer to the token said of its call),
   * then checks the door's answers against what happened:
   * every executeTool settled; a confirmed answer carried a token that a run used; a declined
   * one, a token whose call settled cancelled.
   */
  lab.mcpSettle = async () => {
    for (const inst of lab.instances) if (!inst.freed) inst.ck.dispose();
    await lab.sleep(60);
    for (const inst of lab.instances) {
      if (!inst.mcpAnswers) continue;
      const known = new Set([...inst.issued.values()].map((t) => t.callId).filter((c) => c !== null));
      for (const c of [...inst.runs.keys(), ...inst.proposals.keys()]) known.add(c);
      const free = inst.records.filter((r) => r.via === "webmcp" && !known.has(r.callId) && ["cancelled", "timeout", "confirmed"].includes(r.gate));
      // A token's record is the one of its own call, not any of the same action and args: two
      // such calls may end differently (one declined, one timed out). What the SDK told the
      // agent of that call, through every door that presented the token, picks it: an answer
      // that settled says how the call ended (with the gate and the code it answered: a
      // decline, through invoke too, is `cancelled`/`declined`), a `token_expired` that it
      // timed out, and an invoke answer names the call itself. Answers that say nothing of the
      // token's call are left out: those of calls with another action or other args (a swapped
      // token is refused; a hard tool's input keeps `confirmToken` as one of its args, so such
      // a call is a card of its own, cancelled by the app), refusals on arrival, an answer
      // after dispose (a call of its own, `disposed`), a call naming a callId the SDK may know
      // (answered from that call's memory, whatever the token).
      const told = (t) => inst.attempts.filter((x) => x.token === t.token && x.action === t.action && x.canon === t.canon && x.answer && x.ownCall)
        .map((x) => x.answer).filter((x) => (REMEMBERED.has(x.gate) && x.code !== "disposed") || x.code === "token_expired");
      const endedAs = (r) => (r.note !== undefined ? "declined" : r.reason); // an outcome's code, from its record
      const says = (x, r) => (x.code === "token_expired" ? r.gate === "timeout"
        : r.gate === x.gate && (typeof x.callId !== "string" || r.callId === x.callId) && (x.gate !== "cancelled" || endedAs(r) === x.code));
      // The tokens the SDK told most about first: a call named, then a call's end, then none.
      const unbound = [...inst.issued.values()].filter((x) => x.door === "webmcp" && x.callId === null)
        .map((t) => ({ t, told: told(t) }));
      const rank = (u) => (u.told.some((x) => typeof x.callId === "string") ? 0 : u.told.length ? 1 : 2);
      for (const { t, told } of unbound.sort((a, b) => rank(a) - rank(b))) {
        const fits = (r) => r.action === t.action && tryCanon(r.args) === t.canon && told.every((x) => says(x, r));
        const at = free.findIndex(fits);
        if (at >= 0) t.callId = free.splice(at, 1)[0].callId;
      }
      if (inst.mcpPending.some((c) => !c.settled)) violation(`${inst.mcpPending.filter((c) => !c.settled).length} executeTool calls never settled`);
      for (const a of inst.mcpAnswers) {
        const t = a.token ? inst.issued.get(a.token) : undefined;
        if (a.gate === "confirmed" && !["deleteProject", "wipeAll"].includes(a.action) && !t?.used) violation(`a WebMCP ${a.action} answered confirmed, but no run used its token`);
        if (a.gate === "cancelled" && a.decline && a.code === "declined") {
          const r = t && inst.records.find((x) => x.callId === t.callId && x.gate === "cancelled");
          if (!r) violation(`a WebMCP decline of ${a.action} left no cancelled record for its call`);
        }
      }
      // Every answer that settled a call, matched to that call's own record: via WebMCP, that
      // action, that gate, those args, each record claimed once. Answers without a token
      // first; then each with a token: a fresh call's record (after dispose, every execution
      // is a call of its own), else the record of the token's own call. The
      // record's callId then stands for the answer in `lab.finish`'s checks.
      const tokenCalls = new Set([...inst.issued.values()].map((t) => t.callId).filter((c) => c !== null));
      const claimed = new Set(inst.answers.filter((a) => a.door !== "webmcp").flatMap((a) => a.callIds));
      const fresh = (a) => inst.records.find((r) => r.via === "webmcp" && r.action === a.action && r.gate === a.gate
        && !claimed.has(r.callId) && !tokenCalls.has(r.callId) && [a.canon, a.raw].includes(tryCanon(r.args)));
      const settling = inst.mcpAnswers.filter((a) => REMEMBERED.has(a.gate) || a.gate === "needs_hand_mode");
      for (const a of [...settling.filter((x) => !x.token), ...settling.filter((x) => x.token)]) {
        let record = fresh(a);
        if (!record && a.token) {
          const t = inst.issued.get(a.token);
          const own = t?.callId ? inst.records.find((r) => r.callId === t.callId && r.gate === a.gate) : undefined;
          // (The token's call is answered by every call that presents its token: by a call
          // through another door too, and again on a replay.)
          record = own;
        }
        if (!record) { violation(`a WebMCP answer ${a.gate} for ${a.action} (${String(a.raw).slice(0, 60)}) has no record of its own`); continue; }
        claimed.add(record.callId);
        a.callId = record.callId;
        stats.mcpMatched = (stats.mcpMatched ?? 0) + 1;
        inst.answers.push({ callIds: [record.callId], gate: a.gate, code: a.code, door: "webmcp" });
      }
    }
  };
})();
