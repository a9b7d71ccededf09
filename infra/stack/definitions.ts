import * as shared from "#shared/definitions/index.ts";
import type {
  BucketDefinition,
  FunctionDefinition,
  QueueDefinition,
  RouteDefinition,
  TableDefinition,
} from "#shared/definitions/index.ts";

/**
 * The CORS lists of the definitions (see infra/README.md#cross-origin-access), widened so a test can pass its
 * own copy.
 */
export interface CorsDefinition {
  allowOrigins: readonly string[];
  allowHeaders: readonly string[];
  exposeHeaders: readonly string[];
  allowMethods: readonly string[];
}

/**
 * Everything the stack is built from. The stack takes it as a parameter (defaulting to
 * the shared module) so tests can prove that a change to the definitions reaches the
 * template — "one definition, two consumers".
 */
export interface PlatenDefinitions {
  tables: Readonly<Record<string, TableDefinition>>;
  buckets: Readonly<Record<string, BucketDefinition>>;
  queues: Readonly<Record<string, QueueDefinition>>;
  functions: Readonly<Record<string, FunctionDefinition>>;
  routes: readonly RouteDefinition[];
  binaryMediaTypes: readonly string[];
  cors: CorsDefinition;
}

/** The real definitions of shared/definitions, shared with the local runner. */
export const sharedDefinitions: PlatenDefinitions = {
  tables: shared.tables,
  buckets: shared.buckets,
  queues: shared.queues,
  functions: shared.functions,
  routes: shared.routes,
  binaryMediaTypes: shared.binaryMediaTypes,
  cors: shared.cors,
};

/** `render-dlq` → `RenderDlq`: construct ids and output names derived from definition ids. */
export function pascalCase(id: string): string {
  return id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}
