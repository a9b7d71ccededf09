/**
 * infra/README.md#cross-origin-access: cross-origin access. All origins; the gateway (CDK and local) and the
 * HTTP edge (shared/http/cors-headers.ts, the headers of handler responses) use the same lists.
 */
export const cors = {
  allowOrigins: ["*"],
  allowHeaders: [
    "Origin",
    "X-Requested-With",
    "X-Request-ID",
    "Idempotency-Key",
    "Content-Type",
    "Accept",
    "appkey",
    "SecretKey",
    "Authorization",
    "Accept-Language",
  ],
  exposeHeaders: [
    "Content-Disposition",
    "File-URL",
    "File-ID",
    "Request-Id",
    "X-File-Mapping",
    "Retry-After",
    "X-Request-ID",
    "X-Page-Count",
    "Location",
  ],
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
} as const;
