import {
  JsonSchemaType,
  JsonSchemaVersion,
  type MethodOptions,
  type Model,
  type RequestValidator,
  ResponseType,
  type RestApi,
} from "aws-cdk-lib/aws-apigateway";
import type { RouteDefinition } from "#shared/definitions/index.ts";
import type { CorsDefinition } from "./definitions.ts";
import { addErrorBodyResponse } from "./gateway-error-response.ts";

/**
 * Gateway-side validation of the JSON bodies the route table knows (`jsonBody`): the body
 * must be a JSON object, nothing more. Every other rule stays in the handlers, which answer
 * errors (README.md#errors) with field details (a stricter model would answer API Gateway's own
 * shape instead). What is refused here never invokes a Lambda.
 */
export class JsonBodyValidation {
  readonly #validator: RequestValidator;
  readonly #model: Model;

  constructor(api: RestApi, cors: CorsDefinition, docsBaseUrl: string) {
    // Parameters too, although no method declares a required one yet: a route that does
    // gets it checked without another validator.
    this.#validator = api.addRequestValidator("JsonBody", {
      validateRequestBody: true,
      validateRequestParameters: true,
    });
    this.#model = api.addModel("JsonObject", {
      contentType: "application/json",
      modelName: "JsonObject",
      schema: { schema: JsonSchemaVersion.DRAFT4, title: "JsonObject", type: JsonSchemaType.OBJECT },
    });
    // The same body the handler answers for a body that is not a JSON object (see README.md#errors).
    const message = "the body must be a JSON object";
    const body = {
      statusCode: 400,
      code: "VALIDATION_FAILED",
      message: [message],
      error: "Bad Request",
      details: [{ code: "VALIDATION_FAILED", message }],
      docsUrl: `${docsBaseUrl.replace(/\/$/, "")}/docs/errors#validation_failed`,
    };
    addErrorBodyResponse(api, "BadRequestBody", ResponseType.BAD_REQUEST_BODY, body, cors);
  }

  /** Method options of a route: the validator and the model when its body is JSON. */
  methodOptions(route: RouteDefinition): MethodOptions {
    if (!route.jsonBody) return {};
    return { requestValidator: this.#validator, requestModels: { "application/json": this.#model } };
  }
}
