import { cors } from "#shared/definitions/cors-policy.ts";

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
