/** The definitions in one module: the CDK stack, the local runner, handlers and the domain import it. */
export * from "./buckets.ts";
export * from "./functions.ts";
export * from "./queues.ts";
export * from "./routes.ts";
export * from "./tables.ts";
export * from "./front-ends.ts";
export * from "./schedules.ts";
export * from "./rate-classes.ts";
export * from "./cors-policy.ts";
