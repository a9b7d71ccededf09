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
  /**
   * S3 Object Lock in compliance mode: no object can be overwritten or deleted before its retain-until
   * date, by anyone (shared/records/README.md#where-the-pdfs-live). Versioned, as Object Lock requires;
   * no lifecycle expiry. `defaultDays` is the bucket's default retention, for a put that names none.
   */
  objectLock?: { mode: "COMPLIANCE"; defaultDays: number };
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
  records: {
    id: "records",
    envVar: "BUCKET_RECORDS",
    purpose: "the PDFs of kept transaction records, locked for the workspace's record retention (7 or 10 years)",
    // Seven years of 365 days plus the two leap days they may hold: never shorter than the default retention.
    objectLock: { mode: "COMPLIANCE", defaultDays: 7 * 365 + 2 },
  },
} as const satisfies Record<string, BucketDefinition>;

export type BucketId = keyof typeof buckets;
