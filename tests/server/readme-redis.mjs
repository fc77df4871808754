// `redis` for README's server block in tests/server/readme.test.mjs: node-redis's own
// createClient, each client kept in `opened` so that the test can close what the block opened.
import { createClient as create } from "redis";

export const opened = [];
export function createClient(options) {
  const client = create(options).on("error", () => {});
  opened.push(client);
  return client;
}
