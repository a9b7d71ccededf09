import { type CfnElement, type Stack, Validations } from "aws-cdk-lib";
import { RestApi } from "aws-cdk-lib/aws-apigateway";
import type { IConstruct } from "constructs";
import { writePrefixes } from "#shared/definitions/index.ts";
import type { PlatenDataResources } from "./data.ts";
import type { PlatenFunction } from "./platen-function.ts";
import type { SiteStaticAssets } from "./static-assets.ts";

/**
 * The cdk-nag AwsSolutions findings Platen accepts, each on the construct it concerns and
 * with the reason a reviewer can check. Everything else is fixed in the stack (WAF,
 * access-log bucket, execution logging, request validation, customer-managed execution
 * policies, resources named instead of wildcards);
 * test/infra/nag.test.ts fails on any finding not listed here.
 */

/** Key rotation (OpenAPI rotateApplicationKey) and the admission middleware: why no API Gateway authorizer. */
const AUTH_IN_HANDLER =
  "Every route authenticates in its handler: the admission middleware (shared/http/middleware/admission.ts) checks the appkey hash " +
  "or the Bearer token and the workspace before any work, and the front ends (oidc-provider, the site) authenticate their own " +
  "sessions. An API Gateway authorizer would add a second, cached decision: a rotated application key must stop working at once " +
  "(rotateApplicationKey), which an authorizer cache breaks. GET /health/check is unauthenticated (healthCheck).";

/** Why the functions stay on nodejs22.x although a newer runtime exists (infra/README.md "Runtime"). */
const NODE_22 =
  "The service targets the Lambda nodejs22.x runtime (supported by Lambda until 2027) and its test suite runs on Node 22 and on the " +
  "project minimum Node 20.19; a runtime change is a tested release of its own, not a side effect of a lint rule.";

const ACKNOWLEDGED_API = [
  { id: "AwsSolutions-APIG4", reason: AUTH_IN_HANDLER },
  {
    id: "AwsSolutions-COG4",
    reason: `${AUTH_IN_HANDLER} Workspaces are not Cognito users, so a Cognito authorizer does not apply.`,
  },
];

/** Acknowledges the accepted findings of the whole stack; call once everything is built. */
export function acknowledgeNagFindings(
  stack: Stack,
  parts: {
    data: PlatenDataResources;
    functions: Record<string, PlatenFunction>;
    quietApis: RestApi[];
    siteAssets?: SiteStaticAssets;
  },
): void {
  for (const api of stack.node.findAll().filter((c): c is RestApi => c instanceof RestApi)) {
    acknowledge(api, ACKNOWLEDGED_API);
    if (api.node.tryFindChild("CloudWatchRole")) acknowledgeCloudWatchRole(api);
    if (parts.quietApis.includes(api)) acknowledgeQuietApi(api);
    else if (!api.node.tryFindChild("JsonBody")) acknowledgeProxyApi(api);
  }
  acknowledge(parts.data.accessLogs, [
    {
      id: "AwsSolutions-S1",
      reason:
        "This is the access-log bucket of the data buckets; logging it into itself would log every log delivery, without end.",
    },
  ]);
  if (parts.data.identityKeys) {
    acknowledge(parts.data.identityKeys, [
      {
        id: "AwsSolutions-SMG4",
        reason:
          "The secret holds the seeds of the OAuth signing keys and cookie keys. Rotation is a deliberate operator step that keeps the " +
          "previous seeds verifying (shared/identity/README.md, 'Keys and their rotation'); a rotation Lambda replacing the value on a " +
          "schedule would sign out every user and invalidate every token at once.",
      },
    ]);
  }
  if (parts.siteAssets) acknowledgeSiteAssets(stack, parts.siteAssets);
  for (const fn of Object.values(parts.functions)) {
    acknowledgeObjectKeys(stack, fn, parts.data);
    acknowledge(fn, [{ id: "AwsSolutions-L1", reason: NODE_22 }]);
  }
}

/** Object ARNs end in `/*`: keys are built at run time from workspace, request and file ids. */
function acknowledgeObjectKeys(stack: Stack, fn: PlatenFunction, data: PlatenDataResources): void {
  const { bucketsRead = [], bucketsWrite = [] } = fn.definition.access;
  const reason = (id: string) =>
    `Objects of the ${id} bucket are keyed by workspace, request and file ids created at run time, so no narrower ARN exists; the statement names this one bucket and the exact actions (s3:GetObject / s3:PutObject, never delete).`;
  const arn = (id: string, keys: string) =>
    `<${stack.getLogicalId(data.buckets[id]!.bucket.node.defaultChild as CfnElement)}.Arn>/${keys}*`;
  for (const id of bucketsRead)
    acknowledge(fn, [{ id: `AwsSolutions-IAM5[Resource::${arn(id, "")}]`, reason: reason(id) }]);
  for (const id of bucketsWrite) {
    acknowledge(
      fn,
      writePrefixes(fn.definition.access, id).map((prefix) => ({
        id: `AwsSolutions-IAM5[Resource::${arn(id, prefix)}]`,
        reason: reason(id),
      })),
    );
  }
}

/** The site's built scripts behind CloudFront (static-assets.ts) and the CDK helper that uploads them. */
function acknowledgeSiteAssets(stack: Stack, assets: SiteStaticAssets): void {
  const PUBLIC_FILES =
    "The distribution serves only the site's built browser scripts: public, content-hashed, immutable files with no cookies, " +
    "query strings or user data, which any visitor of the editor downloads anyway.";
  acknowledge(assets.distribution, [
    { id: "AwsSolutions-CFR1", reason: `${PUBLIC_FILES} There is no audience to restrict by country.` },
    {
      id: "AwsSolutions-CFR2",
      reason: `${PUBLIC_FILES} A CloudFront web ACL must live in us-east-1, apart from this regional stack; GET and HEAD only reach a private bucket through origin access control, so there is no input to filter.`,
    },
    {
      id: "AwsSolutions-CFR3",
      reason: `${PUBLIC_FILES} Every fetch CloudFront makes of the bucket is in its S3 server access log (site-assets/ of the access-log bucket); CloudFront's own logs would need an ACL-enabled log bucket.`,
    },
    {
      id: "AwsSolutions-CFR4",
      reason: `${PUBLIC_FILES} The distribution uses its cloudfront.net name, whose default certificate CloudFront serves from TLSv1; a minimum protocol needs a custom domain and certificate, which carry nothing to protect here.`,
    },
  ]);
  acknowledge(assets, [
    {
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(assets.bucket.node.defaultChild as CfnElement)}.Arn>/assets/js/*]`,
      reason:
        "The upload writes the built scripts under assets/js/ of the site-assets bucket, named by their content hash at build " +
        "time; the statement names this one bucket, this prefix and s3:PutObject only.",
    },
  ]);
  // aws-s3-deployment's upload function: one per stack, created by CDK at the stack's top level.
  const uploader = stack.node.children.find((c) => c.node.id.startsWith("Custom::CDKBucketDeployment"));
  if (uploader)
    acknowledge(uploader, [
      {
        id: "AwsSolutions-L1",
        reason:
          "aws-s3-deployment's own function (BucketDeployment), run only during a deploy to copy the built scripts; CDK " +
          "chooses its runtime with the aws-cdk-lib version. Its role is ours (static-assets.ts), with named resources.",
      },
    ]);
}

function acknowledgeCloudWatchRole(api: RestApi): void {
  acknowledge(api, [
    {
      id: "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]",
      reason:
        "The account-level role API Gateway uses to write access and execution logs (RestApi cloudWatchRole). This AWS-managed policy is the one the API Gateway documentation prescribes; it only allows writing logs.",
    },
  ]);
}

/** The health check's own APIs (OpenAPI healthCheck: not written to access logs). */
function acknowledgeQuietApi(api: RestApi): void {
  acknowledge(api, [
    {
      id: "AwsSolutions-APIG1",
      reason: "GET /health/check is not written to access logs; that is why it has its own API (infra/stack/api.ts).",
    },
    {
      id: "AwsSolutions-APIG6",
      reason: "Health checks stay out of the logs; the route takes no input and its function logs its own errors.",
    },
    {
      id: "AwsSolutions-APIG2",
      reason: "GET /health/check takes no body, query or headers: there is nothing to validate.",
    },
  ]);
}

/** `{auth_url}` / `{site}`: one proxy to a function that routes and validates itself. */
function acknowledgeProxyApi(api: RestApi): void {
  acknowledge(api, [
    {
      id: "AwsSolutions-APIG2",
      reason:
        "A proxy of every path to one function (oidc-provider or the site), which parses and validates its own forms and bodies; API Gateway knows no route or body shape here.",
    },
    {
      id: "AwsSolutions-APIG6",
      reason:
        "Access-logged at the stage; the one proxy function logs its own errors, which is all execution logging would add.",
    },
  ]);
}

function acknowledge(scope: IConstruct, acknowledgements: { id: string; reason: string }[]): void {
  for (const a of acknowledgements) Validations.of(scope).acknowledge(a);
}
