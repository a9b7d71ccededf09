import type { Principal } from "#shared/auth/authenticate.ts";
import { appKeyAgeDays, keyRotationAdvice } from "#shared/workspaces/key-age.ts";
import type { ApiRequest } from "./api-types.ts";

/** Response header carrying the key's age in days, beside the standard `Warning`. */
export const KEY_AGE_HEADER = "X-Platen-Key-Age-Days";

/**
 * README.md#authentication: after 90 days without rotation, responses to a request authenticated by the
 * application key carry `Warning: 299 platen "<advice>"` (RFC 9110 style, for humans and
 * logs) and `X-Platen-Key-Age-Days: <n>` (for programs). Other credentials get neither.
 */
export function keyAgeHeaders(
  principal: Pick<Principal, "method" | "workspace"> | undefined,
  now: Date,
): Record<string, string> {
  if (principal?.method !== "appkey") return {};
  const advice = keyRotationAdvice(principal.workspace, now);
  if (!advice) return {};
  return { Warning: `299 platen "${advice}"`, [KEY_AGE_HEADER]: String(appKeyAgeDays(principal.workspace, now)) };
}

/**
 * The caller of a request once admission has settled, or undefined (public route, or
 * admission failed). Early handlers await `admission.principal` themselves.
 */
export async function settledPrincipal(request: ApiRequest | undefined): Promise<Principal | undefined> {
  if (!request) return undefined;
  return request.principal ?? (await request.admission?.principal.catch(() => undefined));
}
