import { systemClock } from "#shared/clock.ts";
import { claimIdempotencyKey } from "#shared/limits/idempotency.ts";
import type { ApiRequest } from "#shared/http/api-types.ts";

export type IdempotentOutcome<R, S> = { fresh: R } | { replay: S };

/**
 * Runs a generation under the request's `Idempotency-Key` (infra/README.md#cross-origin-access lists the
 * header; it makes the spec's "504: do not resend" a safe retry). Without the header it just
 * runs. `store` keeps what a replay needs (JSON, no secrets); a failed run frees the key.
 */
export async function withIdempotencyKey<R, S>(
  req: ApiRequest & { principal: NonNullable<ApiRequest["principal"]> },
  run: () => Promise<R>,
  store: (result: R) => S,
): Promise<IdempotentOutcome<R, S>> {
  const key = req.header("idempotency-key");
  if (key === undefined) return { fresh: await run() };
  const fingerprint = [
    req.event.httpMethod,
    req.event.resource,
    req.query("response") ?? "",
    req.event.body ?? "",
  ].join("\n");
  const claim = await claimIdempotencyKey<S>(req.principal.workspace.id, key, fingerprint, systemClock);
  if ("replay" in claim) return { replay: claim.replay };
  let result: R;
  try {
    result = await run();
  } catch (err) {
    await claim.abandon().catch(() => undefined);
    throw err;
  }
  await claim.commit(store(result));
  return { fresh: result };
}
