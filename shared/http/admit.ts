import { setImmediate as nextTurn } from "node:timers/promises";
import { hashAppKey, isWellFormedAppKey } from "#shared/workspaces/app-key.ts";
import {
  type AuthenticateOptions,
  authenticate,
  type HeaderReader,
  type Principal,
} from "#shared/auth/authenticate.ts";
import type { Clock } from "#shared/clock.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import type { RateClass } from "#shared/definitions/rate-classes.ts";
import { checkRateLimit } from "#shared/limits/rate-limiter.ts";
import { dynamoRateWindows } from "#shared/limits/usage-table.ts";
import { type AdmissionsInProgress, admissionsInProgress } from "#shared/admissions-first.ts";
import { BoundedCache, MiB, textBytes } from "#shared/bounded-cache.ts";

/**
 * Authentication and the rate limit of one request (see README.md#authentication,
 * shared/limits/README.md#rate-limits), possibly still running.
 */
export interface Admission {
  /** The caller, once authenticated and within the rate limit; otherwise the first error in that order. */
  principal: Promise<Principal>;
  /**
   * The caller's workspace id when this container has admitted the same key before and the
   * workspace is not known to be over its limit: side-effect-free work (parsing, templating)
   * may start before `principal` settles. Undefined means: wait for `principal` first.
   */
  knownWorkspaceId?: string;
  /**
   * A key not remembered: the caller once the key is read, before its rate limit is checked
   * (that write leaves on the next turn of the event loop). Side-effect-free work may start
   * from here; `principal` still decides. Rejects as `principal` does when the key is refused.
   */
  authenticated?: Promise<Principal>;
}

/**
 * What admission remembers between the requests of one container, made once per container
 * (`admissionMemory`, when a handler is assembled at module load) and passed in.
 */
export interface AdmissionMemory {
  /**
   * A key belongs to one workspace for ever (rotation makes a new key), so the key hash →
   * workspace id mapping can be remembered; whether the key is still valid is read every time.
   */
  workspaceOfKey: BoundedCache<string, string>;
  /** `workspaceId#class` → epoch seconds until which the last check said "over the limit". */
  limitedUntil: BoundedCache<string, number>;
  /** The requests being admitted right now: work after an answer yields to them (admissions-first.ts). */
  inProgress: AdmissionsInProgress;
}

/** A container's admission memory, empty: no key admitted yet. */
export const admissionMemory = (): AdmissionMemory => ({
  workspaceOfKey: new BoundedCache<string, string>({ maxBytes: 4 * MiB, maxEntries: 10_000 }),
  limitedUntil: new BoundedCache<string, number>({ maxBytes: 4 * MiB, maxEntries: 10_000 }),
  inProgress: admissionsInProgress(),
});

/**
 * Starts admitting a request. With a remembered key the key read and the rate-limit write
 * run side by side (one round trip instead of two), from the next turn of the event loop;
 * otherwise they run in order, the key read at once. The
 * counter stays the only judge of the limit either way. The one imprecision: the first
 * request with a key revoked since it was remembered counts toward its workspace's window
 * before it is refused; the mapping is dropped at once, so it happens once per container.
 */
export function admit(
  header: HeaderReader,
  rateClass: RateClass | undefined,
  clock: Clock,
  memory: AdmissionMemory,
  auth: AuthenticateOptions = {},
): Admission {
  const appKey = header("appkey")?.trim();
  const keyHash = appKey !== undefined && isWellFormedAppKey(appKey) ? hashAppKey(appKey) : undefined;
  const known = keyHash ? memory.workspaceOfKey.get(keyHash) : undefined;
  const limited =
    known && rateClass ? (memory.limitedUntil.get(`${known}#${rateClass}`) ?? 0) > clock.now().getTime() / 1000 : false;
  // A remembered key's requests leave on the event loop's next turn: the caller's early work
  // (checking and templating the request, the document sent to Chromium) goes first, and the
  // round trips then run while Chromium renders instead of before the templating.
  const admission: Admission =
    known && rateClass && !limited
      ? {
          principal: nextTurn().then(() => admitTogether(header, keyHash!, known, rateClass, clock, memory, auth)),
          knownWorkspaceId: known,
        }
      : admitInOrder(header, keyHash, rateClass, clock, memory, auth);
  memory.inProgress.whileAdmitting(admission.principal);
  return admission;
}

/**
 * The key read, then the rate-limit write. The caller is known between the two: a cold
 * container's early work (design, bundle, templating, the render) starts then, and the
 * write leaves on the next turn, after that work's first requests.
 */
function admitInOrder(
  header: HeaderReader,
  keyHash: string | undefined,
  rateClass: RateClass | undefined,
  clock: Clock,
  memory: AdmissionMemory,
  auth: AuthenticateOptions,
): Admission {
  const authenticated = authenticate(header, auth).then((principal) => {
    if (keyHash && principal.method === "appkey") remember(memory, keyHash, principal.workspace.id);
    return principal;
  });
  const principal = authenticated.then(async (caller) => {
    if (rateClass) {
      await nextTurn();
      await countRate(caller.workspace.id, rateClass, clock, memory);
    }
    return caller;
  });
  authenticated.catch(() => undefined); // `principal` carries the same rejection to the caller
  return { principal, authenticated };
}

async function admitTogether(
  header: HeaderReader,
  keyHash: string,
  workspaceId: string,
  rateClass: RateClass,
  clock: Clock,
  memory: AdmissionMemory,
  opts: AuthenticateOptions,
): Promise<Principal> {
  const [auth, rate] = await Promise.allSettled([
    authenticate(header, opts),
    countRate(workspaceId, rateClass, clock, memory),
  ]);
  if (auth.status === "rejected") {
    memory.workspaceOfKey.delete(keyHash);
    throw auth.reason;
  }
  if (auth.value.workspace.id !== workspaceId) {
    // Not the workspace the key was remembered for (cannot happen with appkeys): count the right one.
    memory.workspaceOfKey.delete(keyHash);
    await countRate(auth.value.workspace.id, rateClass, clock, memory);
    return auth.value;
  }
  if (rate.status === "rejected") throw rate.reason;
  return auth.value;
}

/**
 * Counts a request toward its workspace's window of a rate class (shared/limits/README.md#rate-limits):
 * 429 `RATE_LIMITED` with its `retryAfter` over the limit. The one place a request is counted, for
 * every credential: the API's admission (an appkey or a token), `grantedHandler` (a token or a login
 * session, once the route's operation is authorized) and the site's studio. With a container's
 * `memory`, a refusal is remembered until its retryAfter, so the next request of that workspace
 * and class is not admitted early.
 */
export async function countRate(
  workspaceId: string,
  rateClass: RateClass,
  clock: Clock,
  memory?: Pick<AdmissionMemory, "limitedUntil">,
): Promise<void> {
  const key = `${workspaceId}#${rateClass}`;
  try {
    await checkRateLimit(workspaceId, rateClass, { clock, windows: dynamoRateWindows });
    memory?.limitedUntil.delete(key);
  } catch (err) {
    if (memory && isPlatenError(err) && err.code === "RATE_LIMITED" && err.retryAfter !== undefined)
      memory.limitedUntil.set(key, clock.now().getTime() / 1000 + err.retryAfter, textBytes(key) + 8);
    throw err;
  }
}

function remember(memory: AdmissionMemory, keyHash: string, workspaceId: string): void {
  memory.workspaceOfKey.set(keyHash, workspaceId, textBytes(keyHash) + textBytes(workspaceId));
}
