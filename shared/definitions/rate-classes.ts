/**
 * Rate-limit classes of spec 8. Each route of the route table (routes.ts) names its class;
 * shared/limits sets how many requests a minute each class allows.
 */
export type RateClass = "sync" | "async" | "retrieval" | "status";
