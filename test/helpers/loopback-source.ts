/**
 * Node's `fetch` reads its dispatcher from this global (undici's documented key, shared by every undici copy).
 * Only this test process is changed: the stacks and the CLI processes it starts keep their own.
 */
const GLOBAL_DISPATCHER = Symbol.for("undici.globalDispatcher.1");

interface Dispatcher {
  close(): Promise<void>;
}
type Globals = Record<symbol, Dispatcher | undefined>;

/**
 * Sends this test process's `fetch` calls from `address`, a loopback address of the file's own (`127.0.0.2` and
 * up), until the returned function puts the default back. The login limits count per source address
 * (shared/identity/login-limit.ts): a file on a shared stack that signs in often takes an address no other file
 * uses, so its attempts count as on a stack of its own and never reach another file's limit.
 * `probeUrl` is any URL that answers: Node creates its default dispatcher on the first `fetch`.
 */
export async function fetchFromAddress(address: string, probeUrl: string): Promise<() => Promise<void>> {
  const globals = globalThis as unknown as Globals;
  if (!globals[GLOBAL_DISPATCHER]) await (await fetch(probeUrl)).arrayBuffer();
  const previous = globals[GLOBAL_DISPATCHER];
  if (!previous) throw new Error("fetch created no global dispatcher");
  const Agent = previous.constructor as new (opts: { localAddress: string }) => Dispatcher;
  const agent = new Agent({ localAddress: address });
  globals[GLOBAL_DISPATCHER] = agent;
  return async () => {
    globals[GLOBAL_DISPATCHER] = previous;
    await agent.close();
  };
}
