import { parentPort, workerData } from "node:worker_threads";
import { startEmulatorsHere } from "./emulators.ts";

/** Worker-thread entry of `startEmulators`: start, report the endpoints, stop on request. */
const port = parentPort!;
try {
  const emulators = await startEmulatorsHere((workerData as { dataDir: string }).dataDir);
  port.postMessage({ ready: { dynamodbEndpoint: emulators.dynamodbEndpoint, awsEndpoint: emulators.awsEndpoint } });
  port.once("message", async () => {
    await emulators.stop();
    process.exit(0);
  });
} catch (err) {
  port.postMessage({ error: (err as Error).message });
}
