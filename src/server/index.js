// @ts-check
/**
 * @file coworkkit/server (SPEC §13), the package's entry for Node ≥ 20: `verifyReceipt` and
 * the nonce stores. Never imported by the browser entries; its types are server.d.ts.
 */
export { verifyReceipt } from "./verify.js";
export { memoryNonces, redisNonces } from "./nonces.js";
