/** DynamoDB's and the SDK's names for "too many requests right now". */
const THROTTLING = new Set([
  "ProvisionedThroughputExceededException",
  "ThrottlingException",
  "RequestLimitExceeded",
  "TooManyRequestsException",
  "SlowDown",
]);
/** Network failures below the SDK (no answer came back). */
const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE", "EAI_AGAIN", "ENOTFOUND"]);

/**
 * Whether an AWS call failed for a reason that passes on its own (throttled, a 5xx, no
 * answer) rather than one that repeats on every try (access denied, a missing table, a bad
 * request). By name and status, not `instanceof`: a second copy of the SDK in a bundle
 * stays recognised.
 */
export function isTransientAwsError(err: unknown): boolean {
  const e = err as
    | { name?: string; code?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number } }
    | undefined;
  if (!e) return false;
  const status = e.$metadata?.httpStatusCode;
  return (
    e.$retryable !== undefined ||
    THROTTLING.has(e.name ?? "") ||
    e.name === "InternalFailure" ||
    e.name === "TimeoutError" ||
    NETWORK_CODES.has(e.code ?? "") ||
    (status !== undefined && (status >= 500 || status === 429))
  );
}
