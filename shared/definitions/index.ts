/** The one module both consumers (CDK stack, local runner) import. */
export * from "./buckets.ts";
export * from "./functions.ts";
export * from "./queues.ts";
export * from "./routes.ts";
export * from "./tables.ts";
export * from "./front-ends.ts";
export * from "./schedules.ts";
