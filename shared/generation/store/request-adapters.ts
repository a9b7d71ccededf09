import { type Clock, systemClock } from "#shared/clock.ts";
import { getDesignVersion } from "#shared/designs/design-store.ts";
import { getFileRecord, listFileRecords } from "./file-store.ts";
import { finalizeJob, getJob } from "./job-store.ts";
import type { DesignLabels, EventOutbox, RequestDeps, RequestStore } from "./request-ports.ts";

/** The request ports over the DynamoDB tables (job-store.ts, file-store.ts). */
export const dynamoRequestStore: RequestStore = {
  getJob,
  listFiles: listFileRecords,
  getFile: getFileRecord,
  finalizeJob,
};

/** Design labels from the designs table. */
export const dynamoDesignLabels: DesignLabels = {
  labelOf: async (workspaceId, designId, version) =>
    (await getDesignVersion(workspaceId, designId, version))?.manifest.label,
};

/**
 * The outbox in the requests table, deliveries queued on the webhook queue. Its module (the webhook stores, their
 * schemas, SQS) loads on the first event: a function that imports the request ports for reads never compiles it.
 */
const outbox = () => import("#shared/webhooks/event-outbox.ts");
export const queuedEventOutbox: EventOutbox = {
  due: async (...args) => (await outbox()).dueEvents(...args),
  record: async (...args) => (await outbox()).writeEventRecord(...args),
  deliver: async (event) => (await outbox()).deliverEvent(event),
};

/** The production wiring of the request rules, on `clock`. */
export const storedRequestDeps = (clock: Clock): RequestDeps => ({
  clock,
  requests: dynamoRequestStore,
  designs: dynamoDesignLabels,
  outbox: queuedEventOutbox,
});

/** The wiring handlers use: the service clock, adapters built once per container. */
export const liveRequestDeps: RequestDeps = storedRequestDeps(systemClock);
