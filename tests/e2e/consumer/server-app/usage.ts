// coworkkit/server's types as a TypeScript server sees them (tsc --strict, nodenext), with
// node-redis's own client for redisNonces.
import { createClient } from "redis";
import { verifyReceipt, memoryNonces, redisNonces, type NonceStore, type ServerError, type StoredCredential } from "coworkkit/server";

declare const body: { projectId: string; receipt: unknown };
declare function passkeyOf(userId: string, id: string): Promise<StoredCredential | null>;

const redis = createClient({ url: "redis://127.0.0.1:6379" });
const shared: NonceStore = redisNonces(redis, { prefix: "app:nonce:" });
const local = memoryNonces({ max: 10_000 });
const held: number = local.size;

export async function check(userId: string): Promise<string> {
  try {
    const { statement, credentialId, approver } = await verifyReceipt(body.receipt, {
      action: "deleteProject", args: { projectId: body.projectId },
      origin: "https://app.example", rpID: "app.example",
      credential: (id) => passkeyOf(userId, id),
      onCounter: async (id: string, counter: number) => { void id; void counter; },
      maxLifetimeMs: 600_000, clockSkewMs: 30_000,
      nonces: held > 0 ? local : shared,
    });
    const expires: number = statement.expiresAt;
    return `${credentialId} ${approver?.role ?? ""} ${expires}`;
  } catch (error) {
    const code: ServerError["code"] = (error as ServerError).code;
    return code;
  }
}

// @ts-expect-error the action is a name
void verifyReceipt(body.receipt, { action: 5, args: {}, origin: "o", rpID: "r", credential: () => null, nonces: local });
// @ts-expect-error a nonce store is needed
void verifyReceipt(body.receipt, { action: "a", args: {}, origin: "o", rpID: "r", credential: () => null });
// @ts-expect-error args are JSON
void verifyReceipt(body.receipt, { action: "a", args: () => 1, origin: "o", rpID: "r", credential: () => null, nonces: local });
