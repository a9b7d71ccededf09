/** S3 buckets, shared by the CDK stack and the local runner. */
export interface BucketDefinition {
  id: string;
  envVar: string;
  purpose: string;
  /** Lifecycle expiry in days (matches file retention), or undefined to keep forever. */
  expireAfterDays?: number;
}

/** Default file retention of a workspace (spec 3.1 retention; DESIGN retention row). */
export const DEFAULT_FILE_RETENTION_DAYS = 30;

export const buckets = {
  designs: { id: "designs", envVar: "BUCKET_DESIGNS", purpose: "design bundles and thumbnails" },
  files: {
    id: "files",
    envVar: "BUCKET_FILES",
    purpose: "generated PDFs and async params",
    expireAfterDays: DEFAULT_FILE_RETENTION_DAYS,
  },
} as const satisfies Record<string, BucketDefinition>;

export type BucketId = keyof typeof buckets;
