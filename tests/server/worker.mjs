// One server process of the app, for tests/server/processes.test.mjs: it checks receipts with
// coworkkit/server's verifyReceipt against the nonce store named by COWORKKIT_STORE ("redis":
// redisNonces on COWORKKIT_REDIS_URL with the key prefix COWORKKIT_PREFIX; "memory":
// memoryNonces()). Each message { id, file, user, maxLifetimeMs } (a saved receipt file,
// tests/server/receipts.mjs) is answered { id, ok: true, credentialId } or
// { id, ok: false, code, message }. It says { ready: true } once connected.
import { verifyReceipt, memoryNonces, redisNonces } from "../../src/server/index.js";
import { connect } from "./redis.mjs";
import { passkeysOf } from "./receipts.mjs";

const store = process.env.COWORKKIT_STORE;
const nonces = store === "redis"
  ? redisNonces(await connect(process.env.COWORKKIT_REDIS_URL), { prefix: process.env.COWORKKIT_PREFIX })
  : memoryNonces();

process.on("message", async ({ id, file, user, maxLifetimeMs }) => {
  const { action, args, origin, rpID } = file.expect;
  try {
    const { credentialId } = await verifyReceipt(file.receipt, {
      action, args, origin, rpID, maxLifetimeMs, nonces, credential: passkeysOf(file, user),
    });
    process.send({ id, ok: true, credentialId });
  } catch (error) {
    process.send({ id, ok: false, code: error.code, message: error.message });
  }
});
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
