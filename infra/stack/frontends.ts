import {
  LambdaIntegration,
  LogGroupLogDestination,
  ResponseTransferMode,
  type DomainName,
  type RestApi,
} from "aws-cdk-lib/aws-apigateway";
import type { IFunction } from "aws-cdk-lib/aws-lambda";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";
import { createRestApi, executeApiUrl } from "./api.ts";
import type { PlatenDefinitions } from "./definitions.ts";
import type { StageSettings } from "./stage.ts";

/**
 * Function ids of the two front ends that are not part of `{base_url}`:
 * `{auth_url}` (oidc-provider, functions/auth) and `{site}` (functions/site).
 */
export const AUTH_FUNCTION_ID = "auth";
export const SITE_FUNCTION_ID = "site";

export interface ProxyEndpointProps {
  defs: Pick<PlatenDefinitions, "binaryMediaTypes" | "cors">;
  settings: StageSettings;
  /** e.g. `auth` → RestApi `platen-dev-auth`. */
  name: string;
}

/**
 * Extension point for `{auth_url}` and `{site}`: a regional RestApi that forwards every
 * path (`/` and `/{proxy+}`, any method) to one Lambda, so the function does its own
 * routing (oidc-provider does). The stack creates it only when functions.ts has an
 * `auth` or `site` entry; until then the URLs fall back as described in platen-stack.ts.
 *
 * Created before the function (its URL goes into every function's environment), attached
 * with {@link attach} afterwards.
 */
export class ProxyEndpoint extends Construct {
  readonly restApi: RestApi;
  /** The generated endpoint URL, without a trailing slash. */
  readonly generatedUrl: string;

  constructor(scope: Construct, id: string, props: ProxyEndpointProps) {
    super(scope, id);
    const { settings } = props;
    const accessLogs = new LogGroup(this, "AccessLogs", {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
    });
    this.restApi = createRestApi(this, "Rest", `${settings.prefix}-${props.name}`, props.defs, {
      stageName: settings.stage,
      accessLogDestination: new LogGroupLogDestination(accessLogs),
      throttlingRateLimit: 200,
      throttlingBurstLimit: 400,
    });
    this.generatedUrl = executeApiUrl(this.restApi, settings.stage);
  }

  /** Routes every request to `fn` (Lambda proxy integration; STREAM mode for a streaming handler). */
  attach(fn: IFunction, opts: { streaming?: boolean } = {}): void {
    const integration = new LambdaIntegration(fn, {
      allowTestInvoke: false,
      ...(opts.streaming && { responseTransferMode: ResponseTransferMode.STREAM }),
    });
    this.restApi.root.addMethod("ANY", integration);
    this.restApi.root.addProxy({ defaultIntegration: integration, anyMethod: true });
  }

  /** Serves this endpoint at the root of `domain`. */
  mapDomain(domain: DomainName): void {
    domain.addApiMapping(this.restApi.deploymentStage);
  }
}
