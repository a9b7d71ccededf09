import { join, resolve } from "node:path";
import { localEnvironment, quietSdkNotice } from "../local/resource-names.ts";
import { AlreadyRunningError, type Runtime, readLiveRuntime } from "../local/runtime-file.ts";

/**
 * Points the handlers' configuration at the right place for an admin command:
 * - a deployed stack when PLATEN_ENV is not `local` (TABLE_* etc. from the stack outputs);
 * - the running `npm start` of the data dir (its emulator endpoints in runtime.json);
 * - otherwise the data dir itself, with the emulators started just for this command.
 * Returns a function that releases what was started.
 */
export async function connectAdmin(): Promise<() => Promise<void>> {
  quietSdkNotice();
  if ((process.env.PLATEN_ENV ?? "local") !== "local") return async () => {};
  const dataDir = resolve(process.env.PLATEN_DATA_DIR ?? ".platen");
  // The same sealing key as the stack of this data folder (infra/local/stack.ts): identities the CLI adds open there.
  process.env.PLATEN_SIGNING_KEY_FILE ??= join(dataDir, "signing-key");
  const runtime = readLiveRuntime(dataDir);
  if (runtime) {
    if (!runtime.endpoints || !runtime.queueUrls || !runtime.urls) {
      throw new AlreadyRunningError(
        `Platen is still starting with this data folder (pid ${runtime.pid}); wait for its "ready" line`,
      );
    }
    applyEnv(runtime.endpoints, runtime.queueUrls, runtime.urls);
    return async () => {};
  }
  // Loaded only here: with a running stack (the common case) the emulators' modules are never needed.
  const [{ startEmulators }, { createLocalResources }] = await Promise.all([
    import("../local/emulators.ts"),
    import("../local/create-resources.ts"),
  ]);
  const emulators = await startEmulators(dataDir);
  const endpoints = { dynamodb: emulators.dynamodbEndpoint, aws: emulators.awsEndpoint };
  const queueUrls = await createLocalResources(endpoints);
  const origin = `http://localhost:${process.env.PORT ?? 3000}`;
  applyEnv(endpoints, queueUrls, { apiBaseUrl: `${origin}/v1`, authUrl: origin, siteUrl: origin });
  return () => emulators.stop();
}

function applyEnv(
  endpoints: NonNullable<Runtime["endpoints"]>,
  queueUrls: Record<string, string>,
  urls: NonNullable<Runtime["urls"]>,
): void {
  Object.assign(
    process.env,
    localEnvironment({
      dynamodbEndpoint: endpoints.dynamodb,
      awsEndpoint: endpoints.aws,
      queueUrls,
      baseUrl: urls.apiBaseUrl,
      siteUrl: urls.siteUrl,
      authUrl: urls.authUrl,
    }),
  );
}
