// coworkkit/server as a Node app gets it from the packed tarball (tests/e2e/consumer.test.mjs):
// prints one JSON line of what it found. Run where @simplewebauthn/server is installed or not.
import { verifyReceipt, memoryNonces, redisNonces } from "coworkkit/server";

const answer = { exports: [typeof verifyReceipt, typeof memoryNonces, typeof redisNonces] };
const options = {
  action: "deleteProject", args: { projectId: "p1" }, origin: "https://app.example", rpID: "app.example",
  credential: () => null, nonces: memoryNonces(),
};
const statement = '{"action":"deleteProject", "v":1}'; // not canonical, and more
try {
  await verifyReceipt({ statement, credential: {} }, options);
  answer.verified = true;
} catch (error) {
  answer.code = error.code;
  answer.message = error.message;
}
console.log(JSON.stringify(answer));
