/** spec 4.14: cross-origin access. All origins; the gateway (CDK and local) uses the same lists. */
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
  allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
} as const;

/** Headers on every response (API Gateway proxy responses carry their own). */
export const corsHeaders: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": cors.exposeHeaders.join(", "),
};

/** Answer to a CORS preflight (OPTIONS). */
export const preflightHeaders: Record<string, string> = {
  ...corsHeaders,
  "Access-Control-Allow-Headers": cors.allowHeaders.join(", "),
  "Access-Control-Allow-Methods": cors.allowMethods.join(", "),
  "Access-Control-Max-Age": "600",
};
