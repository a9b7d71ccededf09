import { Duration, Stack } from "aws-cdk-lib";
import {
  AccessLogField,
  AccessLogFormat,
  type DomainName,
  EndpointType,
  LambdaIntegration,
  ResponseTransferMode,
  LogGroupLogDestination,
  type MethodOptions,
  MethodLoggingLevel,
  ResponseType,
  RestApi,
  type StageOptions,
} from "aws-cdk-lib/aws-apigateway";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import type { RouteDefinition } from "#shared/definitions/index.ts";
import { type CorsDefinition, type PlatenDefinitions, pascalCase } from "./definitions.ts";
import { PlatenError } from "#shared/errors/platen-error.ts";
import { buildErrorBody } from "#shared/errors/error-body.ts";
import { addErrorBodyResponse } from "./gateway-error-response.ts";
import { JsonBodyValidation } from "./request-validation.ts";
import type { StageSettings } from "./stage.ts";

/** `{base_url}` ends in /v1 (see README.md#versioning): every route hangs below this resource. */
export const API_VERSION_PATH = "v1";

/**
 * Stage throttling is a safety net only; the real limits are DynamoDB counters (see
 * shared/limits/README.md#service-limits).
 */
const MAIN_THROTTLE = { throttlingRateLimit: 1000, throttlingBurstLimit: 2000 };
/** Quiet routes are unauthenticated health checks: a low ceiling protects Lambda concurrency. */
const QUIET_THROTTLE = { throttlingRateLimit: 50, throttlingBurstLimit: 100 };

/** A RestApi serving the quiet routes (OpenAPI healthCheck) whose first path segment is `segment`. */
export interface QuietApi {
  segment: string;
  api: RestApi;
  routes: RouteDefinition[];
}

export interface PlatenApiProps {
  defs: PlatenDefinitions;
  settings: StageSettings;
}

/**
 * The public REST API. Routes live under `/v1` of a regional RestApi whose stage is named
 * after the deployment stage (`https://<id>.execute-api.<region>.amazonaws.com/dev/v1/...`).
 *
 * Access logging of REST APIs is per stage, so quiet routes (OpenAPI healthCheck: `/health/check` is
 * not written to access logs) are served by separate small RestApis without access
 * logging, one per first path segment. With a custom domain they are mapped at the
 * multi-level base path `v1/<segment>`, which API Gateway prefers over the root mapping of
 * the main API because the longest matching base path wins.
 *
 * The RestApis are created before the functions (whose environment carries the base URL)
 * and get their methods in {@link addRoutes}.
 */
export class PlatenApi extends Construct {
  readonly restApi: RestApi;
  readonly accessLogGroup: LogGroup;
  readonly quietApis: QuietApi[];
  /** `{base_url}` on the generated endpoint (no custom domain), ending in /v1. */
  readonly generatedBaseUrl: string;
  private readonly defs: PlatenDefinitions;
  private readonly stageName: string;

  constructor(scope: Construct, id: string, props: PlatenApiProps) {
    super(scope, id);
    const { defs, settings } = props;
    this.defs = defs;
    this.stageName = settings.stage;
    this.accessLogGroup = new LogGroup(this, "AccessLogs", {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    this.restApi = createRestApi(this, "Rest", `${settings.prefix}-api`, defs, {
      stageName: settings.stage,
      accessLogDestination: new LogGroupLogDestination(this.accessLogGroup),
      accessLogFormat: accessLogFormat(),
      // Execution logs of gateway-side failures only: no bodies or headers (appkey) in them.
      loggingLevel: MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      ...MAIN_THROTTLE,
    });
    this.generatedBaseUrl = `${executeApiUrl(this.restApi, settings.stage)}/${API_VERSION_PATH}`;
    this.quietApis = groupQuietRoutes(defs.routes).map(([segment, routes]) => ({
      segment,
      routes,
      api: createRestApi(this, `Quiet${pascalCase(segment)}`, `${settings.prefix}-${segment}`, defs, {
        stageName: settings.stage,
        ...QUIET_THROTTLE,
      }),
    }));
  }

  /**
   * Adds one Lambda proxy method per route of the definitions; JSON bodies are checked by
   * the gateway (request-validation.ts), whose error names the docs under `docsBaseUrl`.
   */
  addRoutes(functions: Readonly<Record<string, IFunction>>, docsBaseUrl: string): void {
    const validation = new JsonBodyValidation(this.restApi, this.defs.cors, docsBaseUrl);
    addNoRouteResponse(this.restApi, this.defs.cors, docsBaseUrl);
    for (const route of this.defs.routes.filter((r) => !r.quiet)) {
      addRouteMethod(
        this.restApi,
        `/${API_VERSION_PATH}${route.path}`,
        route,
        functions,
        validation.methodOptions(route),
      );
    }
    for (const quiet of this.quietApis) {
      addNoRouteResponse(quiet.api, this.defs.cors, docsBaseUrl);
      for (const route of quiet.routes) addRouteMethod(quiet.api, quietPath(route), route, functions);
    }
  }

  /** Maps the main API at the root of `domain` and each quiet API at `v1/<segment>`. */
  mapDomain(domain: DomainName): void {
    domain.addApiMapping(this.restApi.deploymentStage);
    for (const quiet of this.quietApis) {
      domain.addApiMapping(quiet.api.deploymentStage, { basePath: `${API_VERSION_PATH}/${quiet.segment}` });
    }
  }

  /** Generated URL of every quiet route, for the stack outputs. */
  quietRouteUrls(): { route: RouteDefinition; url: string }[] {
    return this.quietApis.flatMap((quiet) =>
      quiet.routes.map((route) => ({
        route,
        url: `${executeApiUrl(quiet.api, this.stageName)}${quietPath(route)}`,
      })),
    );
  }
}

/**
 * A regional RestApi with the shared CORS preflight, binary media types and CORS headers on
 * gateway-generated errors. Only the access-logged API creates the account-level
 * CloudWatch role that access logging requires.
 */
export function createRestApi(
  scope: Construct,
  id: string,
  restApiName: string,
  defs: Pick<PlatenDefinitions, "binaryMediaTypes" | "cors">,
  deployOptions: StageOptions,
): RestApi {
  const api = new RestApi(scope, id, {
    restApiName,
    endpointConfiguration: { types: [EndpointType.REGIONAL] },
    binaryMediaTypes: [...defs.binaryMediaTypes],
    cloudWatchRole: deployOptions.accessLogDestination !== undefined,
    deployOptions,
    defaultCorsPreflightOptions: {
      allowOrigins: [...defs.cors.allowOrigins],
      allowHeaders: [...defs.cors.allowHeaders],
      allowMethods: [...defs.cors.allowMethods],
      exposeHeaders: [...defs.cors.exposeHeaders],
      maxAge: Duration.seconds(600),
    },
  });
  addCorsGatewayResponses(api, defs.cors);
  return api;
}

/**
 * Errors API Gateway answers itself (403 unknown route, 413, 429 throttled, 504 time-out)
 * never reach the Lambda's CORS headers; without these a browser sees only a CORS failure.
 */
function addCorsGatewayResponses(api: RestApi, cors: CorsDefinition): void {
  const quote = (values: readonly string[]) => `'${values.join(",")}'`;
  const responseHeaders = {
    "Access-Control-Allow-Origin": quote(cors.allowOrigins),
    "Access-Control-Allow-Headers": quote(cors.allowHeaders),
    "Access-Control-Expose-Headers": quote(cors.exposeHeaders),
  };
  api.addGatewayResponse("Default4xx", { type: ResponseType.DEFAULT_4XX, responseHeaders });
  api.addGatewayResponse("Default5xx", { type: ResponseType.DEFAULT_5XX, responseHeaders });
}

/**
 * A path or method no route has: API Gateway's own answer is 403 "Missing Authentication
 * Token"; this makes it the local gateway's 404 NOT_FOUND with the error body (README.md#errors) (English).
 * API Gateway cannot tell a wrong method from a wrong path, so a wrong method is 404 here
 * where the local gateway answers 405 METHOD_NOT_ALLOWED (infra/README.md).
 */
function addNoRouteResponse(api: RestApi, cors: CorsDefinition, docsBaseUrl: string): void {
  const body = buildErrorBody(new PlatenError("NOT_FOUND"), "en", docsBaseUrl);
  addErrorBodyResponse(api, "NoRoute", ResponseType.MISSING_AUTHENTICATION_TOKEN, body, cors);
}

/** JSON access-log line; no headers, so `appkey` and `Authorization` never reach the logs. */
function accessLogFormat(): AccessLogFormat {
  return AccessLogFormat.custom(
    JSON.stringify({
      requestId: AccessLogField.contextRequestId(),
      ip: AccessLogField.contextIdentitySourceIp(),
      requestTime: AccessLogField.contextRequestTime(),
      method: AccessLogField.contextHttpMethod(),
      path: AccessLogField.contextPath(),
      resourcePath: AccessLogField.contextResourcePath(),
      status: AccessLogField.contextStatus(),
      protocol: AccessLogField.contextProtocol(),
      responseLength: AccessLogField.contextResponseLength(),
      latency: AccessLogField.contextResponseLatency(),
      integrationLatency: AccessLogField.contextIntegrationLatency(),
      integrationStatus: AccessLogField.contextIntegrationStatus(),
      errorType: AccessLogField.contextErrorResponseType(),
      error: AccessLogField.contextErrorMessage(),
      userAgent: AccessLogField.contextIdentityUserAgent(),
    }),
  );
}

/**
 * The generated endpoint URL, built from the RestApi id and the literal stage name rather
 * than `api.url`: `api.url` refers to the Stage, which depends on the methods, which depend
 * on the functions whose environment holds this URL — a dependency cycle.
 */
export function executeApiUrl(api: RestApi, stageName: string): string {
  const stack = Stack.of(api);
  return `https://${api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${stageName}`;
}

function addRouteMethod(
  api: RestApi,
  path: string,
  route: RouteDefinition,
  functions: Readonly<Record<string, IFunction>>,
  options: MethodOptions = {},
): void {
  const fn = functions[route.function];
  if (!fn)
    throw new Error(`Route ${route.method} ${route.path} needs function "${route.function}", which is not defined.`);
  // timeout > 29 s needs the account-level quota increase (infra/README.md); no test-invoke
  // permission, so each method adds exactly one Lambda permission.
  const integration = new LambdaIntegration(fn, {
    timeout: Duration.seconds(route.timeoutSeconds),
    // Downloads stream their ZIP/PDF (Lambda response streaming): no 6 MB/10 MB buffering.
    ...(route.streaming && { responseTransferMode: ResponseTransferMode.STREAM }),
    allowTestInvoke: false,
  });
  api.root.resourceForPath(path).addMethod(route.method, integration, options);
}

/** `/health/check` → `health`. */
function firstSegment(route: RouteDefinition): string {
  return route.path.split("/").filter(Boolean)[0] ?? "";
}

/** Path inside a quiet API: the mapping `v1/<segment>` strips the first segment. */
function quietPath(route: RouteDefinition): string {
  return `/${route.path.split("/").filter(Boolean).slice(1).join("/")}`;
}

/**
 * Quiet routes by first segment. A logged route sharing that segment would be shadowed by
 * the `v1/<segment>` domain mapping, so that mix is refused.
 */
function groupQuietRoutes(routes: readonly RouteDefinition[]): [string, RouteDefinition[]][] {
  const groups = new Map<string, RouteDefinition[]>();
  for (const route of routes.filter((r) => r.quiet)) {
    const segment = firstSegment(route);
    groups.set(segment, [...(groups.get(segment) ?? []), route]);
  }
  for (const route of routes.filter((r) => !r.quiet)) {
    if (groups.has(firstSegment(route))) {
      throw new Error(
        `Route ${route.path} shares /${firstSegment(route)} with a quiet route; quiet routes need their own segment.`,
      );
    }
  }
  return [...groups.entries()];
}
