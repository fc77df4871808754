// coworkkit/testing (SPEC §15): drives the hard confirmation card (SPEC §4) from an app's own
// end-to-end tests the way a person does, through the browser's automation protocol. Node ≥ 20,
// ESM, for the test runner's side only: nothing here runs in (or can be imported by) a page.

/**
 * Playwright's `Page` of a Chromium browser: the card's closed shadow root is reached through
 * the DevTools protocol (`page.context().newCDPSession(page)`, `DOM.getDocument` with
 * `pierce: true`), Confirm and Cancel are pressed with `page.mouse`, the reason typed with
 * `page.keyboard`. Only the members used are named, so any Playwright version fits.
 */
export interface PlaywrightChromiumPage {
  context(): {
    /** Called with this page itself (typed `never` so that Playwright's `Page | Frame` fits). */
    newCDPSession(page: never): Promise<{ send(method: string, params?: object): Promise<unknown> }>;
    browser(): { browserType(): { name(): string } } | null;
  };
  mouse: { click(x: number, y: number): Promise<unknown> };
  keyboard: { type(text: string): Promise<unknown> };
}

/**
 * A page object that can run a function on a part of the SDK's closed shadow roots: the shape
 * of coworkkit's own end-to-end drivers (its Firefox page over WebDriver BiDi, its WebKit page
 * over WebDriver classic with a page tap). `onPart(part, fn, args)` runs `fn` with `this` = the
 * first element whose `part` attribute lists `part` and resolves with its JSON-able result, or
 * `undefined` when there is none; `mouse` and `keyboard` must send trusted input.
 */
export interface CardDriverPage {
  onPart(part: string, fn: (this: Element, arg: unknown) => unknown, args: [unknown]): Promise<unknown>;
  mouse: { click(x: number, y: number): Promise<unknown> };
  keyboard: { type(text: string): Promise<unknown> };
}

/** A page `readCard`, `confirmCard` and `cancelCard` accept. */
export type CardPage = PlaywrightChromiumPage | CardDriverPage;

/** One of the card's visible buttons, in the order shown. */
export interface CardButton {
  /** The button's `part`: `"cancel-all"`, `"cancel"` or `"confirm"`. */
  part: "cancel-all" | "cancel" | "confirm";
  /** Its text, e.g. `"Confirm"`, `"Cancel all 3"`. */
  label: string;
  disabled: boolean;
}

/** What the open card shows. */
export interface CardState {
  title: string;
  summary: string;
  /** `"1 of N"` while N cards wait, else `null`. */
  position: string | null;
  buttons: CardButton[];
  /**
   * Whether Confirm would count a person's press now (`data-armed="true"`, SPEC §4.2: armed
   * `armDelayMs` after its content was painted, disarmed again by every change).
   */
  armed: boolean;
  /** The expiry countdown (e.g. `"Expires in 0:29"`), or `null`. */
  countdown: string | null;
  /** A notice the card shows (e.g. after a failed passkey prompt), or `null`. */
  notice: string | null;
  /** The text in the card's reason field. */
  reason: string;
  /** The `part` of the card's element that has focus, or `null`. */
  focused: string | null;
}

export interface ConfirmCardOptions {
  /** How long to wait for an open card whose Confirm is armed, in ms (default 10000). */
  timeout?: number;
}

export interface CancelCardOptions {
  /** Typed into the card's reason field with the trusted keyboard before Cancel is pressed. */
  reason?: string;
  /** How long to wait for an open card, in ms (default 10000). */
  timeout?: number;
}

/** What the open card shows, or `null` when no card is open. */
export function readCard(page: CardPage): Promise<CardState | null>;

/**
 * Waits until a card is open and its Confirm armed, keeps this click apart from the previous
 * one this module made on `page` (600 ms: a second click at the same place within the
 * browser's double-click time is a double click, which the card refuses), then presses Confirm
 * with the driver's trusted mouse. Resolves with what the card showed when it was pressed.
 */
export function confirmCard(page: CardPage, options?: ConfirmCardOptions): Promise<CardState>;

/**
 * Waits until a card is open, types `reason` (if given) into its reason field with the trusted
 * keyboard, then presses Cancel with the trusted mouse. Resolves with what the card showed.
 */
export function cancelCard(page: CardPage, options?: CancelCardOptions): Promise<CardState>;
