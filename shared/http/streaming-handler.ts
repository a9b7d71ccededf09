import { chain, type ProxyHandler, withPrincipal } from "./api-handler.ts";
import type { ApiFunction, EarlyApiFunction } from "./api-types.ts";

/**
 * An authenticated route whose body may be streamed (downloads: spec 4.6 ZIPs of up to 100
 * PDFs): sent through Lambda response streaming where the runtime offers it (send.ts).
 */
export function streamingApiHandler(fn: ApiFunction): ProxyHandler {
  return chain((req) => fn(withPrincipal(req)), { streaming: true });
}

/**
 * A streaming route that starts side-effect-free work during admission (earlyApiHandler)
 * and may leave work for after its response: sync generation answers with the PDF, then
 * stores it. Lambda keeps the invocation until that work ends.
 */
export function earlyStreamingApiHandler(fn: EarlyApiFunction): ProxyHandler {
  return chain((req) => fn(req as Parameters<EarlyApiFunction>[0]), { early: true, streaming: true });
}
