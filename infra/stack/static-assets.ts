import { join } from "node:path";
import { Duration } from "aws-cdk-lib";
import {
  AllowedMethods,
  CachePolicy,
  Distribution,
  HttpVersion,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket } from "aws-cdk-lib/aws-s3";
import { Asset } from "aws-cdk-lib/aws-s3-assets";
import { BucketDeployment, CacheControl, Source } from "aws-cdk-lib/aws-s3-deployment";
import { Construct } from "constructs";
import { siteStaticAssets } from "#shared/definitions/static-assets.ts";
import { executionRole } from "./function-access.ts";
import type { StageSettings } from "./stage.ts";

/** A year: the longest a browser and CloudFront keep a file (its name changes with its content). */
const IMMUTABLE_TTL = Duration.days(365);

export interface SiteStaticAssetsProps {
  settings: StageSettings;
  /** Repository root, where `siteStaticAssets.dir` starts. */
  projectRoot: string;
  /** The data buckets' access-log bucket (cdk-nag S1): this bucket logs under `site-assets/`. */
  accessLogs: IBucket;
}

/**
 * The site's built browser scripts (shared/definitions/static-assets.ts) as static files: a private
 * bucket (all public access blocked, TLS only) that only this CloudFront distribution reads, through
 * origin access control, with every file cached a year (`immutable`). The site function writes the
 * distribution's URL into the editor's `<script src>` and CSP (`PLATEN_SITE_ASSETS_URL`), so the
 * script never passes through, nor loads with, the function.
 *
 * A distribution of its own rather than one in front of the site: behind CloudFront the site's
 * API Gateway would see CloudFront's addresses instead of the visitors', which its per-address
 * attempt counters (passcodes, login) and the WAF's per-address rate rule rely on.
 */
export class SiteStaticAssets extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly cachePolicy: CachePolicy;
  /** `https://<distribution domain>`, without a trailing slash. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: SiteStaticAssetsProps) {
    super(scope, id);
    const { settings } = props;
    this.bucket = new Bucket(this, "Bucket", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      serverAccessLogsBucket: props.accessLogs,
      serverAccessLogsPrefix: "site-assets/",
      removalPolicy: settings.removalPolicy,
    });
    this.cachePolicy = new CachePolicy(this, "Immutable", {
      cachePolicyName: `${settings.prefix}-site-assets-immutable`,
      comment: "Content-hashed files: one name, one content, cached a year",
      minTtl: IMMUTABLE_TTL,
      defaultTtl: IMMUTABLE_TTL,
      maxTtl: IMMUTABLE_TTL,
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
    });
    this.distribution = new Distribution(this, "Distribution", {
      comment: `${settings.prefix} site static assets`,
      httpVersion: HttpVersion.HTTP2_AND_3,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        cachePolicy: this.cachePolicy,
        compress: true,
        // nosniff, HSTS, no framing: the script is only ever loaded by the site's editor.
        responseHeadersPolicy: ResponseHeadersPolicy.SECURITY_HEADERS,
      },
    });
    this.url = `https://${this.distribution.distributionDomainName}`;
    this.deployBuild(props);
  }

  /**
   * Uploads the build with aws-s3-deployment's function, on a role of our own: its log group only,
   * the build's zip, and listing and writing `assets/js/` of this bucket (the construct's own grants,
   * `s3:*Object*` wildcards and deletes, are dropped: the role is passed in without policy updates).
   */
  private deployBuild(props: SiteStaticAssetsProps): void {
    const build = new Asset(this, "Build", { path: join(props.projectRoot, siteStaticAssets.dir) });
    const prefix = siteStaticAssets.urlPrefix.replace(/^\//, "");
    const logGroup = new LogGroup(this, "DeployLogs", {
      retention: props.settings.logRetention,
      removalPolicy: props.settings.removalPolicy,
    });
    const role = executionRole(this, logGroup);
    role.addToPolicy(
      new PolicyStatement({ actions: ["s3:GetObject"], resources: [build.bucket.arnForObjects(build.s3ObjectKey)] }),
    );
    role.addToPolicy(new PolicyStatement({ actions: ["s3:ListBucket"], resources: [this.bucket.bucketArn] }));
    role.addToPolicy(
      new PolicyStatement({ actions: ["s3:PutObject"], resources: [this.bucket.arnForObjects(`${prefix}*`)] }),
    );
    new BucketDeployment(this, "Deploy", {
      sources: [Source.bucket(build.bucket, build.s3ObjectKey)],
      role: role.withoutPolicyUpdates(),
      logGroup,
      destinationBucket: this.bucket,
      destinationKeyPrefix: prefix,
      contentType: siteStaticAssets.contentType,
      cacheControl: [CacheControl.fromString(siteStaticAssets.cacheControl)],
      // Earlier builds stay: a page opened before a deploy still loads the script it names.
      prune: false,
    });
  }
}
