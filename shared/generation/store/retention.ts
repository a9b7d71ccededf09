/**
 * shared/generation/README.md#request-states-and-retention: job records are kept 24 hours after completion or
 * failure.
 */
export const JOB_RETENTION_MS = 24 * 60 * 60 * 1000;
