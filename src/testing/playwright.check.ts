// Type-checked only (src/testing/tsconfig.json), never shipped: Playwright's own `Page` (the
// version tests/e2e pins) is a `CardPage`, and the results are typed as testing.d.ts says.
import type { Page } from "playwright-core";
import { readCard, confirmCard, cancelCard, type CardState } from "./testing.js";

export async function check(page: Page): Promise<string | null> {
  const card: CardState | null = await readCard(page);
  const shown: CardState = await confirmCard(page, { timeout: 5000 });
  await cancelCard(page, { reason: "not this one" });
  // @ts-expect-error: the reason is a string
  await cancelCard(page, { reason: 7 });
  // @ts-expect-error: a page-side object is not a page
  await readCard(window);
  return card ? card.position : shown.buttons[0]?.label ?? null;
}
