import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#shared/definitions/index.ts";
import { sharedDefinitions } from "../../infra/stack/definitions.ts";
import { apiMethods, apiResourcePaths, integrationFunction } from "./api-resources.ts";
import { type Cfn, logicalId, resourcesOfType, SYNTH_TIMEOUT_MS, type Synthesized, synthStack } from "./synth.ts";

let s: Synthesized;
let mainApi: string;
let quietApi: string;

beforeAll(() => {
  s = synthStack();
  mainApi = logicalId(s.stack, s.stack.api.restApi);
  quietApi = logicalId(s.stack, s.stack.api.quietApis[0]!.api);
}, SYNTH_TIMEOUT_MS);

/** Where a route must be: `/v1/...` on the main API, or its path minus the first segment on the quiet API. */
const locationOf = (route: (typeof routes)[number]) =>
  route.quiet
    ? { api: quietApi, path: `/${route.path.split("/").filter(Boolean).slice(1).join("/")}` }
    : { api: mainApi, path: `/v1${route.path}` };

const stageOf = (restApi: string) =>
  resourcesOfType(s.json, "AWS::ApiGateway::Stage").find(([, p]) => p.RestApiId.Ref === restApi)![1];

describe("routes of shared/definitions/routes.ts", () => {
  it("puts every logged route under /v1 of the main API with its method and function", () => {
    const methods = apiMethods(s.json);
    for (const route of routes.filter((r) => !r.quiet)) {
      const method = methods.find(
        (m) => m.restApi === mainApi && m.path === `/v1${route.path}` && m.httpMethod === route.method,
      );
      expect(method, `${route.method} /v1${route.path}`).toBeDefined();
      expect(method!.properties.Integration.Type).toBe("AWS_PROXY");
      expect(integrationFunction(method!)).toBe(logicalId(s.stack, s.stack.functions[route.function]!.fn));
    }
  });

  it("gives sync routes the 60 s integration time-out and the others 29 s", () => {
    const methods = apiMethods(s.json).filter((m) => m.httpMethod !== "OPTIONS");
    for (const route of routes) {
      const { api, path } = locationOf(route);
      const method = methods.find((m) => m.restApi === api && m.path === path && m.httpMethod === route.method)!;
      expect(method.properties.Integration.TimeoutInMillis, route.path).toBe(route.timeoutSeconds * 1000);
    }
    const sync = routes.filter((r) => r.path.startsWith("/file/sync/"));
    expect(sync.length).toBeGreaterThan(0);
    for (const route of sync) expect(route.timeoutSeconds).toBe(60);
    expect(
      methods
        .filter((m) => m.properties.Integration.TimeoutInMillis === 60_000)
        .map((m) => m.path)
        .sort(),
    ).toEqual(sync.map((r) => `/v1${r.path}`).sort());
  });

  it("has no method that is not in the route table (plus preflights)", () => {
    const apis = new Set([mainApi, ...s.stack.api.quietApis.map((q) => logicalId(s.stack, q.api))]);
    const all = apiMethods(s.json).filter((m) => m.httpMethod !== "OPTIONS");
    expect(all.filter((m) => apis.has(m.restApi))).toHaveLength(routes.length);
    // The front ends' proxy APIs (`{site}`, `{auth_url}`) add only their two catch-all methods each.
    expect(all.filter((m) => !apis.has(m.restApi)).every((m) => m.httpMethod === "ANY")).toBe(true);
    // API Gateway may invoke one function per method; the sweep schedule's permission is EventBridge's.
    const byApiGateway = resourcesOfType(s.json, "AWS::Lambda::Permission").filter(
      ([, p]) => p.Principal === "apigateway.amazonaws.com",
    );
    expect(byApiGateway).toHaveLength(all.length);
  });

  it("serves {site} through its own proxy API in STREAM mode (file downloads are streamed)", () => {
    const app = logicalId(s.stack, s.stack.functions.site!.fn);
    const proxies = apiMethods(s.json).filter(
      (m) => m.httpMethod === "ANY" && JSON.stringify(m.properties.Integration.Uri).includes(app),
    );
    expect(proxies.map((m) => m.path).sort()).toEqual(["/", "/{proxy+}"]);
    for (const m of proxies) {
      expect(m.properties.Integration.ResponseTransferMode).toBe("STREAM");
      expect(JSON.stringify(m.properties.Integration.Uri)).toContain("response-streaming-invocations");
    }
  });

  it("answers CORS preflight (OPTIONS) on every resource of every API", () => {
    const options = apiMethods(s.json).filter((m) => m.httpMethod === "OPTIONS");
    for (const api of [mainApi, quietApi]) {
      for (const path of apiResourcePaths(s.json, api)) {
        const preflight = options.find((m) => m.restApi === api && m.path === path);
        expect(preflight, `OPTIONS ${path}`).toBeDefined();
        const headers = preflight!.properties.Integration.IntegrationResponses[0].ResponseParameters;
        expect(headers["method.response.header.Access-Control-Allow-Headers"]).toBe(
          `'${sharedDefinitions.cors.allowHeaders.join(",")}'`,
        );
        expect(headers["method.response.header.Access-Control-Allow-Origin"]).toBe("'*'");
      }
    }
  });

  it("adds CORS headers to gateway-generated 4xx/5xx responses", () => {
    for (const api of [mainApi, quietApi]) {
      const responses = resourcesOfType(s.json, "AWS::ApiGateway::GatewayResponse").filter(
        ([, p]) => p.RestApiId.Ref === api,
      );
      // The main API also answers a refused JSON body itself (request-validation.ts); both a path no route has.
      const own =
        api === mainApi
          ? ["BAD_REQUEST_BODY", "DEFAULT_4XX", "DEFAULT_5XX", "MISSING_AUTHENTICATION_TOKEN"]
          : ["DEFAULT_4XX", "DEFAULT_5XX", "MISSING_AUTHENTICATION_TOKEN"];
      expect(responses.map(([, p]) => p.ResponseType).sort()).toEqual(own);
      for (const [, p] of responses) {
        expect(p.ResponseParameters["gatewayresponse.header.Access-Control-Allow-Origin"]).toBe("'*'");
        expect(p.ResponseParameters["gatewayresponse.header.Access-Control-Expose-Headers"]).toBe(
          `'${sharedDefinitions.cors.exposeHeaders.join(",")}'`,
        );
      }
    }
  });
});

describe("a path or method no route has", () => {
  it("is answered 404 NOT_FOUND with the error body (README.md#errors), not API Gateway's 403 Missing Authentication Token", () => {
    for (const api of [mainApi, quietApi]) {
      const [[, p]] = resourcesOfType(s.json, "AWS::ApiGateway::GatewayResponse").filter(
        ([, r]) => r.RestApiId.Ref === api && r.ResponseType === "MISSING_AUTHENTICATION_TOKEN",
      ) as [[string, Cfn]];
      expect(p.StatusCode).toBe("404");
      expect(p.ResponseParameters["gatewayresponse.header.Content-Language"]).toBe("'en'");
      const template = JSON.stringify(p.ResponseTemplates["application/json"]);
      for (const piece of [
        '\\"statusCode\\":404',
        '\\"code\\":\\"NOT_FOUND\\"',
        '\\"details\\":[]',
        "/docs/errors#not_found",
      ])
        expect(template).toContain(piece);
    }
  });
});

describe("REST API settings", () => {
  it("is regional with the binary media types of the definitions", () => {
    for (const [, p] of resourcesOfType(s.json, "AWS::ApiGateway::RestApi")) {
      expect(p.EndpointConfiguration.Types).toEqual(["REGIONAL"]);
      expect(p.BinaryMediaTypes).toEqual(sharedDefinitions.binaryMediaTypes);
    }
  });

  it("names the stage after the deployment stage and throttles only as a safety net", () => {
    const stage = stageOf(mainApi);
    expect(stage.StageName).toBe("dev");
    expect(stage.MethodSettings[0]).toMatchObject({ ThrottlingRateLimit: 1000, ThrottlingBurstLimit: 2000 });
    expect(s.stack.api.generatedBaseUrl).toContain("/dev/v1");
  });

  it("writes JSON access logs of the main API stage to a log group", () => {
    const { AccessLogSetting } = stageOf(mainApi);
    expect(AccessLogSetting.DestinationArn["Fn::GetAtt"][0]).toBe(logicalId(s.stack, s.stack.api.accessLogGroup));
    const format = JSON.parse(AccessLogSetting.Format) as Record<string, string>;
    for (const field of ["requestId", "ip", "method", "path", "status", "latency"])
      expect(format).toHaveProperty(field);
    expect(JSON.stringify(format)).not.toMatch(/appkey|authorization/i);
  });

  it("serves quiet routes (OpenAPI healthCheck: /health/check) from an API whose stage has no access log", () => {
    const methods = apiMethods(s.json);
    for (const route of routes.filter((r) => r.quiet)) {
      expect(methods.some((m) => m.restApi === mainApi && m.path.endsWith(route.path))).toBe(false);
      const { api, path } = locationOf(route);
      expect(api).toBe(quietApi);
      expect(methods.some((m) => m.restApi === quietApi && m.httpMethod === route.method && m.path === path)).toBe(
        true,
      );
    }
    expect(stageOf(quietApi).AccessLogSetting).toBeUndefined();
    expect(stageOf(quietApi).StageName).toBe("dev");
  });
});
