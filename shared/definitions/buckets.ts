/** S3 buckets, shared by the CDK stack and the local runner. */
export interface BucketDefinition {
  id: string;
  envVar: string;
  purpose: string;
  /** Lifecycle expiry in days (matches file retention), or undefined to keep forever. */
  expireAfterDays?: number;
  /** Shorter expiry of objects under a prefix (a lifecycle rule each). */
  prefixExpiry?: readonly { prefix: string; days: number }[];
  /**
   * Presigned GETs a browser follows from the API's 302: any origin, any request header (a
   * redirected `fetch` carries the API's `appkey` along, which needs a preflight).
   */
  browserGet?: boolean;
}

/** Default file retention of a workspace (shared/generation/README.md#request-states-and-retention). */
export const DEFAULT_FILE_RETENTION_DAYS = 30;

export const buckets = {
  designs: { id: "designs", envVar: "BUCKET_DESIGNS", purpose: "design bundles and thumbnails" },
  files: {
    id: "files",
    envVar: "BUCKET_FILES",
    purpose: "generated PDFs, async params, large request ZIPs and the site's page images",
    expireAfterDays: DEFAULT_FILE_RETENTION_DAYS,
    // Request ZIPs served by presigned URL (shared/generation/http/archive-link.ts) copy PDFs kept
    // anyway: a day's copy covers repeated downloads; a later download builds it again.
    // The site's page images of a file (shared/page-images/README.md) are a cache too: a day
    // after it was drawn an image is gone, so none outlives its file by more than a day.
    prefixExpiry: [
      { prefix: "zips/", days: 1 },
      { prefix: "pages/", days: 1 },
    ],
    browserGet: true,
  },
} as const satisfies Record<string, BucketDefinition>;

export type BucketId = keyof typeof buckets;
