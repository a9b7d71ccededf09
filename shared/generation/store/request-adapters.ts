import { type Clock, systemClock } from "#shared/clock.ts";
import { getDesignVersion } from "#shared/designs/design-store.ts";
import { deliverEvent, dueEvents, writeEventRecord } from "#shared/webhooks/event-outbox.ts";
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

/** The outbox in the requests table, deliveries queued on the webhook queue. */
export const queuedEventOutbox: EventOutbox = {
  due: dueEvents,
  record: writeEventRecord,
  deliver: (event) => deliverEvent(event),
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
