import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { siteStaticAssets } from "#shared/definitions/static-assets.ts";
import manifest from "../../functions/site/studio/generated/scripts.json" with { type: "json" };
import { deployedBundles } from "../helpers/deployed-bundles.ts";
import {
  bundleCode,
  isAssetUploader,
  logicalId,
  resourcesOfType,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
  synthStack,
} from "./synth.ts";

const YEAR_SECONDS = 365 * 24 * 3600;

/**
 * The site's built browser scripts in AWS (infra/stack/static-assets.ts): a private bucket read by
 * CloudFront through origin access control, every file cached a year, the build uploaded by a
 * BucketDeployment, and the site (only) told the distribution's URL. The site function's own
 * bundle no longer holds the script.
 */
describe("the site's static assets", () => {
  let synth: Synthesized;
  beforeAll(() => {
    synth = synthStack();
  }, SYNTH_TIMEOUT_MS);

  it("keeps the files in a bucket with all public access blocked, TLS only, access-logged", () => {
    const id = logicalId(synth.stack, synth.stack.siteAssets!.bucket);
    synth.template.hasResourceProperties("AWS::S3::Bucket", {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      LoggingConfiguration: Match.objectLike({ LogFilePrefix: "site-assets/" }),
    });
    const [, policy] = resourcesOfType(synth.json, "AWS::S3::BucketPolicy").find(([, p]) => p.Bucket?.Ref === id)!;
    const statements = policy.PolicyDocument.Statement as { Effect: string; Principal?: unknown; Action: unknown }[];
    // Only CloudFront reads (for this distribution); plain HTTP is denied.
    const reads = statements.filter((s) => s.Effect === "Allow");
    expect(reads).toEqual([
      expect.objectContaining({
        Action: "s3:GetObject",
        Principal: { Service: "cloudfront.amazonaws.com" },
        Condition: { StringEquals: { "AWS:SourceArn": expect.anything() } },
      }),
    ]);
    expect(statements.some((s) => s.Effect === "Deny" && JSON.stringify(s).includes("aws:SecureTransport"))).toBe(true);
  });

  it("serves them through CloudFront with origin access control, HTTPS, GET and HEAD, and an immutable cache policy", () => {
    const policyId = logicalId(synth.stack, synth.stack.siteAssets!.cachePolicy);
    synth.template.hasResourceProperties("AWS::CloudFront::CachePolicy", {
      CachePolicyConfig: Match.objectLike({
        MinTTL: YEAR_SECONDS,
        DefaultTTL: YEAR_SECONDS,
        MaxTTL: YEAR_SECONDS,
        ParametersInCacheKeyAndForwardedToOrigin: Match.objectLike({
          CookiesConfig: { CookieBehavior: "none" },
          QueryStringsConfig: { QueryStringBehavior: "none" },
          EnableAcceptEncodingGzip: true,
          EnableAcceptEncodingBrotli: true,
        }),
      }),
    });
    synth.template.resourceCountIs("AWS::CloudFront::OriginAccessControl", 1);
    const [[, distribution]] = resourcesOfType(synth.json, "AWS::CloudFront::Distribution");
    const config = distribution!.DistributionConfig;
    expect(config.DefaultCacheBehavior).toMatchObject({
      CachePolicyId: { Ref: policyId },
      ViewerProtocolPolicy: "redirect-to-https",
      AllowedMethods: ["GET", "HEAD"],
      Compress: true,
    });
    expect(config.Origins).toHaveLength(1);
    expect(config.Origins[0]).toMatchObject({
      S3OriginConfig: { OriginAccessIdentity: "" },
      OriginAccessControlId: { "Fn::GetAtt": [expect.stringMatching(/OriginAccessControl/), "Id"] },
    });
  });

  it("uploads the build under assets/js/ with its type and year-long caching, keeping earlier builds", () => {
    synth.template.hasResourceProperties("Custom::CDKBucketDeployment", {
      DestinationBucketKeyPrefix: "assets/js/",
      Prune: false,
      SystemMetadata: {
        "content-type": siteStaticAssets.contentType,
        "cache-control": siteStaticAssets.cacheControl,
      },
    });
  });

  it("uploads on a role of its own: its log group, the build's zip, and assets/js/ of the bucket, no wildcard action", () => {
    const [[, upload]] = resourcesOfType(synth.json, "AWS::Lambda::Function").filter(([id]) => isAssetUploader(id));
    const roleId = upload!.Role["Fn::GetAtt"][0] as string;
    expect(roleId).toContain("SiteAssets");
    const [, policy] = resourcesOfType(synth.json, "AWS::IAM::Policy").find(([, p]) =>
      (p.Roles as { Ref: string }[]).some((r) => r.Ref === roleId),
    )!;
    const actions = (policy.PolicyDocument.Statement as { Action: string }[]).map((st) => st.Action).sort();
    expect(actions).toEqual(["s3:GetObject", "s3:ListBucket", "s3:PutObject"]);
    const role = synth.json.Resources[roleId]!.Properties!;
    for (const arn of role.ManagedPolicyArns) expect(JSON.stringify(arn)).not.toContain("iam::aws:policy");
  });

  it("tells the site, and no other function, where the scripts are", () => {
    const distributionId = logicalId(synth.stack, synth.stack.siteAssets!.distribution);
    const withUrl = Object.entries(synth.stack.functions).filter(([, fn]) => {
      const props = synth.json.Resources[logicalId(synth.stack, fn.fn)]!.Properties!;
      return props.Environment?.Variables?.PLATEN_SITE_ASSETS_URL !== undefined;
    });
    expect(withUrl.map(([id]) => id)).toEqual(["site"]);
    const site = synth.json.Resources[logicalId(synth.stack, synth.stack.functions.site!.fn)]!.Properties!;
    expect(JSON.stringify(site.Environment.Variables.PLATEN_SITE_ASSETS_URL)).toContain(distributionId);
    expect(synth.json.Outputs?.SiteAssetsUrl).toBeDefined();
  });
});

describe("the site function's bundle", () => {
  it("names the built script but does not carry it (CodeMirror is in the static file only)", async () => {
    const { site: dir } = await deployedBundles(); // the run's one build of every function
    const code = bundleCode(dir!);
    expect(code).toContain(manifest.editor);
    // A message of CodeMirror's syntax trees (@lezer/common): in the built script, not in the function.
    const marker = "Can't add per-node props to node types";
    const built = readFileSync(join(import.meta.dirname, "../..", siteStaticAssets.dir, manifest.editor), "utf8");
    expect(built.includes(marker)).toBe(true);
    expect(code.includes(marker)).toBe(false);
    expect(readdirSync(dir!).some((name) => name.endsWith(".json"))).toBe(false);
  }, 900_000);
});
