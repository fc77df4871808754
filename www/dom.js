// A tiny element builder: h("li", { class: "x", onclick }, "text", child, ...). Strings become
// text nodes (never HTML); `null`/`false` children and attributes are skipped.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "checked") el.checked = Boolean(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** "1 task", "12 tasks". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
