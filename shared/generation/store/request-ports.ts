import type { Clock } from "#shared/clock.ts";
import type { GenerationEvent } from "#shared/webhooks/generation-event.ts";
import type { FileRecord } from "./file-store.ts";
import type { CountedAtEnd, JobRecord } from "./job-store.ts";

/**
 * The ports of a request's rules (status, downloads, finalization): the small interfaces
 * they read and write through, as `Renderer` and `Clock` are. The DynamoDB/SQS adapters
 * are in request-adapters.ts; unit tests pass in-memory fakes.
 */

/** A request's job record and file records (the requests and files tables). */
export interface RequestStore {
  getJob(requestId: string): Promise<JobRecord | undefined>;
  /** Every file record of the request, in contents order. */
  listFiles(requestId: string): Promise<FileRecord[]>;
  getFile(requestId: string, fileId: string): Promise<FileRecord | undefined>;
  /**
   * Ends a processing job with its outcome, counting `counted` in the same write; false when it had
   * already ended (another finalizer won).
   */
  finalizeJob(
    requestId: string,
    outcome: Pick<JobRecord, "status" | "completedAt" | "failedFiles" | "error" | "expiresAt">,
    counted?: CountedAtEnd,
  ): Promise<boolean>;
}

/** The label a design version names its ZIPs with (OpenAPI downloadRequest), if the version still exists. */
export interface DesignLabels {
  labelOf(workspaceId: string, designId: string, version: number): Promise<string | undefined>;
}

/** The webhook outbox: events are recorded durably, then their deliveries queued. */
export interface EventOutbox {
  /**
   * The events some endpoint would receive now; an event nobody would receive is neither recorded
   * nor queued. When the endpoints cannot be read, every event (the relay decides later).
   */
  due(events: GenerationEvent[]): Promise<GenerationEvent[]>;
  record(event: GenerationEvent, expiresAt: number): Promise<void>;
  /** Queues the event's deliveries; false leaves it in the outbox for the relay. */
  deliver(event: GenerationEvent): Promise<boolean>;
}

/** What the read rules (status, downloads) need. */
export interface ReadDeps {
  clock: Clock;
  requests: Pick<RequestStore, "getJob" | "listFiles" | "getFile">;
}

/** What a whole-request download needs besides the records: the ZIP's name. */
export interface DownloadDeps extends ReadDeps {
  designs: DesignLabels;
}

/** What finalization needs. */
export interface FinalizeDeps {
  clock: Clock;
  requests: Pick<RequestStore, "getJob" | "listFiles" | "finalizeJob">;
  outbox: EventOutbox;
}

/** Every port of the request rules at once (the production wiring). */
export type RequestDeps = DownloadDeps & FinalizeDeps & { requests: RequestStore };
