import type { ResponseType, RestApi } from "aws-cdk-lib/aws-apigateway";
import type { ErrorBody } from "#shared/errors/error-body.ts";
import type { CorsDefinition } from "./definitions.ts";

/**
 * An answer API Gateway gives itself, with an error body (README.md#errors) instead of its own: a fixed
 * English template (`Content-Language: en`) that browsers on other origins may read.
 */
export function addErrorBodyResponse(
  api: RestApi,
  id: string,
  type: ResponseType,
  body: ErrorBody,
  cors: CorsDefinition,
): void {
  const quote = (values: readonly string[]) => `'${values.join(",")}'`;
  api.addGatewayResponse(id, {
    type,
    statusCode: String(body.statusCode),
    templates: { "application/json": JSON.stringify(body) },
    responseHeaders: {
      "Content-Language": "'en'",
      "Access-Control-Allow-Origin": quote(cors.allowOrigins),
      "Access-Control-Expose-Headers": quote(cors.exposeHeaders),
    },
  });
}
