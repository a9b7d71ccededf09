/**
 * File retention (DESIGN: retention). The default matches the files bucket's lifecycle
 * rule in shared/definitions/buckets.ts; a per-workspace setting can override it later.
 */
export const DEFAULT_FILE_RETENTION_DAYS = Number(process.env.PLATEN_FILE_RETENTION_DAYS ?? 30) || 30;

/** spec 3.1: job records are kept 24 hours after completion or failure. */
export const JOB_RETENTION_MS = 24 * 60 * 60 * 1000;
