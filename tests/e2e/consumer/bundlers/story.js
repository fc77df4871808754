// What every bundler app below does once its bundle has run: instantiate the wasm the way that
// bundler's recipe says (`init`), then one instance with an open and a hard action, handed to
// the consumer test on `window`. The test invokes them and clicks the card itself.
/**
 * @param {string} bundler which app this is (the test checks it reached the right page)
 * @param {() => Promise<unknown>} init the recipe's way of instantiating the wasm
 * @param {typeof import("coworkkit").Coworkkit} Coworkkit the class from the entry the app imports
 */
export async function start(bundler, init, Coworkkit) {
  await init();
  const ck = new Coworkkit({ armDelayMs: 300 });
  ck.defineAction({
    name: "add",
    description: "Adds two numbers.",
    control: "open",
    input: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    run: ({ a, b }) => a + b,
  });
  ck.defineAction({
    name: "shipOrder",
    description: "Ships an order; it cannot be called back.",
    control: "hard",
    confirmationSummary: () => `Ship the order? (${bundler})`,
    run: () => ({ shipped: true }),
  });
  window.ck = ck;
  window.bundler = bundler;
  window.ready = true;
}
