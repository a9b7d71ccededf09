/**
 * Rate-limit classes (shared/limits/README.md#rate-limits). Each route of the route table (routes.ts) names its
 * class; shared/limits sets how many requests a minute each class allows.
 */
export type RateClass = "sync" | "async" | "retrieval" | "status" | "preview" | "design-write";
