import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import serverless from "serverless-http";
import { config } from "#shared/aws/config.ts";
import { createAuthApp } from "#shared/identity/auth-app.ts";
import { startLogContext } from "#shared/observability/logger.ts";

/**
 * `{auth_url}` (spec 4.13): every path of the auth API, as Lambda proxy events, turned into
 * a Node request for oidc-provider by serverless-http. The app is built on the first
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

export async function handler(event: APIGatewayProxyEvent, context: Context) {
  startLogContext(context, { apiRequestId: event.requestContext?.requestId });
  app ??= build().catch((err) => {
    app = undefined;
    throw err;
  });
  return (await app)(event, context);
}
