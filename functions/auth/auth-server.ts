import type { APIGatewayProxyResult } from "aws-lambda";
import serverless from "serverless-http";
import { config } from "#shared/aws/config.ts";
import type { EdgeResponse } from "#shared/http/edge-context.ts";
import { edgeChain } from "#shared/http/edge-chain.ts";
import { send } from "#shared/http/send.ts";
import { createAuthApp } from "#shared/identity/auth-app.ts";

/**
 * `{auth_url}` (see shared/identity/README.md#auth_url): every path of the auth API, as Lambda proxy events,
 * turned into a Node request for oidc-provider by serverless-http. The app is built on the first
 * invocation (it reads the keys) and reused while the container is warm.
 */
let app: Promise<ReturnType<typeof serverless>> | undefined;

function build(): Promise<ReturnType<typeof serverless>> {
  const { authUrl, baseUrl } = config();
  const issuer = new URL(authUrl);
  const mountPath = issuer.pathname.replace(/\/$/, "");
  return createAuthApp({ issuer: authUrl, apiAudience: baseUrl }).then((handle) =>
    serverless(handle, {
      // oidc-provider derives its URLs from the request: the event's path lacks the stage
      // (restored through originalUrl) and the protocol is the issuer's (TLS ends at the gateway).
      request: (req: { url: string; originalUrl?: string; socket: { encrypted?: boolean } }) => {
        req.originalUrl = `${mountPath}${req.url}`;
        req.socket.encrypted = issuer.protocol === "https:";
      },
    }),
  );
}

async function authApp(): Promise<ReturnType<typeof serverless>> {
  app ??= build().catch((err) => {
    app = undefined;
    throw err;
  });
  return app;
}

/** What the auth server answers when its app cannot be built (the app answers its own errors). */
const authErrorAnswer = (): EdgeResponse => ({
  head: {
    statusCode: 500,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    body: "Internal error",
  },
});

/**
 * The shared chain (shared/http/edge-chain.ts) around the oidc-provider app, which keeps
 * its own Koa stack and writes its screens with the shared security headers and cookies
 * (shared/identity/http-io.ts): a failure outside the app (building it) is logged and
 * answered 500; the invocation gets its log keys and publishes its metrics.
 */
export const handler = send(
  edgeChain({ errors: authErrorAnswer, timeoutEarlyInMillis: 0 }, async (event, context) => ({
    head: (await (await authApp())(event, context)) as APIGatewayProxyResult,
  })),
  { streaming: false },
);
