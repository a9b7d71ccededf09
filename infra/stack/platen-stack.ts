import { fileURLToPath } from "node:url";
import { CfnOutput, Stack, type StackProps } from "aws-cdk-lib";
import { RestApi } from "aws-cdk-lib/aws-apigateway";
import { Construct } from "constructs";
import { readTsaSettings } from "#shared/signing/design-signer.ts";
import { PlatenApi } from "./api.ts";
import { wireQueueConsumers } from "./consumers.ts";
import { wireSchedules } from "./schedule-wiring.ts";
import { PlatenDataResources } from "./data.ts";
import { type PlatenDefinitions, pascalCase, sharedDefinitions } from "./definitions.ts";
import { type CustomDomains, PlatenDomains } from "./domains.ts";
import { AUTH_FUNCTION_ID, ProxyEndpoint, SITE_FUNCTION_ID } from "./frontends.ts";
import { FunctionBundles } from "./function-bundle.ts";
import { PlatenMonitoring } from "./monitoring.ts";
import { acknowledgeNagFindings } from "./nag.ts";
import { PlatenFunction } from "./platen-function.ts";
import { SiteStaticAssets } from "./static-assets.ts";
import { type StageSettings, stageSettings } from "./stage.ts";
import { PlatenWaf } from "./waf.ts";

/** Repository root, where the definitions' entry paths start. */
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface PlatenStackProps extends StackProps {
  /** `dev` (default) or `prod`. */
  stage?: string;
  /** Defaults to shared/definitions; tests pass modified copies. */
  definitions?: PlatenDefinitions;
  domains?: CustomDomains;
  /** Alarm notifications go to an SNS topic with this e-mail subscriber. */
  alarmEmail?: string;
  /** Defaults to the repository root. */
  projectRoot?: string;
  /**
   * The time-stamp authority of B-T signatures (shared/signing/README.md): `PLATEN_TSA_URL` and
   * `PLATEN_TSA_POLICY` of every function (`-c tsaUrl=… -c tsaPolicy=…`). Without it, B-T designs fail.
   */
  timestamps?: { tsaUrl?: string; tsaPolicyOid?: string };
}

/** The public URLs the code needs (spec `{base_url}`, `{auth_url}`, `{site}`). */
interface PublicUrls {
  baseUrl: string;
  authUrl: string | undefined;
  siteUrl: string | undefined;
}

/**
 * The whole service in one stack, built purely from the definitions: data resources, one
 * {@link PlatenFunction} per function definition, the REST API from the route table, queue
 * consumers for the consumers that exist, and monitoring.
 */
export class PlatenStack extends Stack {
  readonly settings: StageSettings;
  readonly data: PlatenDataResources;
  readonly api: PlatenApi;
  readonly functions: Record<string, PlatenFunction> = {};
  readonly monitoring: PlatenMonitoring;
  readonly urls: PublicUrls;
  private readonly timestampEnvironment: Record<string, string>;
  /** The site's built browser scripts behind CloudFront, when the site exists. */
  readonly siteAssets: SiteStaticAssets | undefined;
  private readonly hasBaseDomain: boolean;

  constructor(scope: Construct, id: string, props: PlatenStackProps = {}) {
    super(scope, id, props);
    const defs = props.definitions ?? sharedDefinitions;
    this.settings = stageSettings(props.stage ?? "dev");
    this.data = new PlatenDataResources(this, "Data", defs, this.settings);
    this.api = new PlatenApi(this, "Api", { defs, settings: this.settings });
    const domains = new PlatenDomains(this, "Domains", props.domains ?? {});
    this.hasBaseDomain = domains.url("base") !== undefined;
    const auth = this.frontEnd(defs, AUTH_FUNCTION_ID, "auth");
    const site = this.frontEnd(defs, SITE_FUNCTION_ID, "site");
    this.urls = {
      baseUrl: domains.url("base") ? `${domains.url("base")}/v1` : this.api.generatedBaseUrl,
      authUrl: domains.url("auth") ?? auth?.generatedUrl,
      siteUrl: domains.url("site") ?? site?.generatedUrl,
    };
    this.timestampEnvironment = timestampEnvironment(props.timestamps);
    this.createFunctions(defs, props.projectRoot ?? REPO_ROOT);
    this.siteAssets = this.siteStaticAssets(props.projectRoot ?? REPO_ROOT);
    this.api.addRoutes(
      Object.fromEntries(Object.entries(this.functions).map(([k, f]) => [k, f.fn])),
      this.urls.siteUrl ?? this.urls.baseUrl,
    );
    this.attachFrontEnd(defs, auth, AUTH_FUNCTION_ID);
    this.attachFrontEnd(defs, site, SITE_FUNCTION_ID);
    this.mapDomains(domains, auth, site);
    wireQueueConsumers(this.data, this.functions);
    wireSchedules(this, this.functions);
    this.monitoring = new PlatenMonitoring(this, "Monitoring", {
      settings: this.settings,
      api: this.api,
      data: this.data,
      functions: this.functions,
      alarmEmail: props.alarmEmail,
    });
    this.protectApis();
    acknowledgeNagFindings(this, {
      data: this.data,
      functions: this.functions,
      quietApis: this.api.quietApis.map((q) => q.api),
      siteAssets: this.siteAssets,
    });
    this.addOutputs();
  }

  /** Every REST API of the stack (main, quiet, front ends) behind one WAF web ACL. */
  private protectApis(): void {
    const waf = new PlatenWaf(this, "Waf", this.settings);
    for (const api of this.node.findAll().filter((c): c is RestApi => c instanceof RestApi)) waf.protect(api);
  }

  /**
   * Extension point for `{auth_url}` / `{site}`: an endpoint exists only once functions.ts
   * defines the function. Without it and without a custom domain the env var is left unset,
   * and shared/aws/config.ts falls back to PLATEN_BASE_URL.
   */
  private frontEnd(defs: PlatenDefinitions, functionId: string, name: string): ProxyEndpoint | undefined {
    if (!defs.functions[functionId]) return undefined;
    return new ProxyEndpoint(this, `${pascalCase(name)}Endpoint`, { defs, settings: this.settings, name });
  }

  private attachFrontEnd(defs: PlatenDefinitions, endpoint: ProxyEndpoint | undefined, functionId: string): void {
    const fn = this.functions[functionId];
    const streaming = defs.functions[functionId]?.streaming;
    if (endpoint && fn) endpoint.attach(fn.fn, { streaming });
  }

  /** The editor's script from a bucket behind CloudFront, named to the site only (static-assets.ts). */
  private siteStaticAssets(projectRoot: string): SiteStaticAssets | undefined {
    const site = this.functions[SITE_FUNCTION_ID];
    if (!site) return undefined;
    const assets = new SiteStaticAssets(this, "SiteAssets", {
      settings: this.settings,
      projectRoot,
      accessLogs: this.data.accessLogs,
    });
    site.addEnvironment("PLATEN_SITE_ASSETS_URL", assets.url);
    return assets;
  }

  private createFunctions(defs: PlatenDefinitions, projectRoot: string): void {
    const environment: Record<string, string> = {
      PLATEN_ENV: this.settings.stage,
      PLATEN_BASE_URL: this.urls.baseUrl,
      ...(this.urls.authUrl ? { PLATEN_AUTH_URL: this.urls.authUrl } : {}),
      ...(this.urls.siteUrl ? { PLATEN_SITE_URL: this.urls.siteUrl } : {}),
      ...this.timestampEnvironment,
    };
    const scope = new Construct(this, "Functions");
    const bundles = new FunctionBundles(projectRoot, Object.values(defs.functions));
    for (const definition of Object.values(defs.functions)) {
      this.functions[definition.id] = new PlatenFunction(scope, definition.id, {
        definition,
        settings: this.settings,
        data: this.data,
        bundles,
        environment,
      });
    }
  }

  private mapDomains(domains: PlatenDomains, auth?: ProxyEndpoint, site?: ProxyEndpoint): void {
    const base = domains.domain("base");
    if (base) this.api.mapDomain(base);
    // An auth/site domain without its function stays unmapped (it may be served elsewhere).
    const authDomain = auth && domains.domain("auth");
    if (auth && authDomain) auth.mapDomain(authDomain);
    const siteDomain = site && domains.domain("site");
    if (site && siteDomain) site.mapDomain(siteDomain);
  }

  private addOutputs(): void {
    const fallback = "not deployed: falls back to BaseUrl";
    new CfnOutput(this, "BaseUrl", { value: this.urls.baseUrl, description: "{base_url}" });
    new CfnOutput(this, "AuthUrl", {
      value: this.urls.authUrl ?? this.urls.baseUrl,
      description: `{auth_url}${this.urls.authUrl ? "" : ` (${fallback})`}`,
    });
    new CfnOutput(this, "SiteUrl", {
      value: this.urls.siteUrl ?? this.urls.baseUrl,
      description: `{site}${this.urls.siteUrl ? "" : ` (${fallback})`}`,
    });
    if (this.siteAssets)
      new CfnOutput(this, "SiteAssetsUrl", {
        value: this.siteAssets.url,
        description: "the site's built browser scripts (CloudFront, immutable)",
      });
    for (const { route, url } of this.api.quietRouteUrls()) {
      // With a base domain the `v1/<segment>` mapping serves the quiet route under {base_url}.
      const value = this.hasBaseDomain ? `${this.urls.baseUrl}${route.path}` : url;
      new CfnOutput(this, `Quiet${pascalCase(route.path)}Url`, {
        value,
        description: `${route.path} (own API, not access-logged)`,
      });
    }
    for (const { definition, table } of Object.values(this.data.tables)) {
      new CfnOutput(this, `Table${pascalCase(definition.id)}Name`, { value: table.tableName });
    }
    for (const { definition, bucket } of Object.values(this.data.buckets)) {
      new CfnOutput(this, `Bucket${pascalCase(definition.id)}Name`, { value: bucket.bucketName });
    }
    for (const { definition, queue, dlq } of Object.values(this.data.queues)) {
      new CfnOutput(this, `Queue${pascalCase(definition.id)}Url`, { value: queue.queueUrl });
      new CfnOutput(this, `Queue${pascalCase(definition.dlq.id)}Url`, { value: dlq.queueUrl });
    }
  }
}

/**
 * PLATEN_TSA_URL and PLATEN_TSA_POLICY from the stack's props, checked at synth by the same reader the
 * functions use: a malformed URL or OID stops `cdk synth`, not the first B-T document.
 */
function timestampEnvironment(timestamps: PlatenStackProps["timestamps"]): Record<string, string> {
  const env = {
    ...(timestamps?.tsaUrl && { PLATEN_TSA_URL: timestamps.tsaUrl }),
    ...(timestamps?.tsaPolicyOid && { PLATEN_TSA_POLICY: timestamps.tsaPolicyOid }),
  };
  readTsaSettings(env);
  return env;
}
