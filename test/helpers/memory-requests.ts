import type { Clock } from "#shared/clock.ts";
import type { FileRecord } from "#shared/generation/store/index.ts";
import type { CountedAtEnd, JobRecord } from "#shared/generation/store/index.ts";
import type { DesignLabels, EventOutbox, RequestDeps, RequestStore } from "#shared/generation/store/index.ts";
import type { GenerationEvent } from "#shared/webhooks/generation-event.ts";

/**
 * In-memory fakes of the request ports (request-ports.ts) for unit tests of the rules.
 * They keep the adapters' contracts that the rules rely on: reads return copies (a rule
 * cannot change the store by mutating what it read), files come in contents order, and
 * `finalizeJob` succeeds only while the job is processing (exactly one finalizer wins), and
 * an outbox's `due` leaves out what no endpoint receives.
 */
export class MemoryRequestStore implements RequestStore {
  readonly jobs = new Map<string, JobRecord>();
  readonly files = new Map<string, FileRecord>();
  /** Every call, in order (`getJob:<id>`, `listFiles:<id>`, `finalizeJob:<id>`…). */
  readonly calls: string[] = [];
  /** Runs before each read of file records (e.g. a store finishing meanwhile). */
  beforeFileRead?: () => void;

  putJob(job: JobRecord): this {
    this.jobs.set(job.requestId, structuredClone(job));
    return this;
  }

  putFiles(...records: FileRecord[]): this {
    for (const r of records) this.files.set(`${r.requestId}/${r.fileId}`, structuredClone(r));
    return this;
  }

  async getJob(requestId: string): Promise<JobRecord | undefined> {
    this.calls.push(`getJob:${requestId}`);
    const job = this.jobs.get(requestId);
    return job && structuredClone(job);
  }

  async listFiles(requestId: string): Promise<FileRecord[]> {
    this.calls.push(`listFiles:${requestId}`);
    this.beforeFileRead?.();
    return [...this.files.values()]
      .filter((f) => f.requestId === requestId)
      .sort((a, b) => a.index - b.index)
      .map((f) => structuredClone(f));
  }

  async getFile(requestId: string, fileId: string): Promise<FileRecord | undefined> {
    this.calls.push(`getFile:${requestId}/${fileId}`);
    this.beforeFileRead?.();
    const file = this.files.get(`${requestId}/${fileId}`);
    return file && structuredClone(file);
  }

  async finalizeJob(
    requestId: string,
    outcome: Parameters<RequestStore["finalizeJob"]>[1],
    counted?: CountedAtEnd,
  ): Promise<boolean> {
    this.calls.push(`finalizeJob:${requestId}${counted ? `+${counted.fileIds.join(",")}` : ""}`);
    const job = this.jobs.get(requestId);
    if (job?.status !== "processing") return false;
    const { activeShard: _shard, ...rest } = job;
    this.jobs.set(requestId, {
      ...rest,
      ...structuredClone(outcome),
      ...(counted && { settled: job.settled + counted.fileIds.length }),
      ...(counted?.aliveAt && { renderAliveAt: counted.aliveAt }),
    });
    return true;
  }
}

/** An outbox that keeps what was recorded and delivered; `failDeliveries` makes queueing fail like a queue outage. */
export class MemoryOutbox implements EventOutbox {
  readonly recorded: { event: GenerationEvent; expiresAt: number }[] = [];
  readonly delivered: GenerationEvent[] = [];
  failDeliveries = false;
  /** Which events an endpoint would receive (every one unless set: a workspace with an endpoint for all). */
  receives: (event: GenerationEvent) => boolean = () => true;
  constructor(private readonly calls?: string[]) {}

  async due(events: GenerationEvent[]): Promise<GenerationEvent[]> {
    return events.filter((e) => this.receives(e));
  }

  async record(event: GenerationEvent, expiresAt: number): Promise<void> {
    this.calls?.push(`record:${event.event}`);
    this.recorded.push({ event: structuredClone(event), expiresAt });
  }

  async deliver(event: GenerationEvent): Promise<boolean> {
    this.calls?.push(`deliver:${event.event}`);
    if (this.failDeliveries) return false;
    this.delivered.push(structuredClone(event));
    return true;
  }
}

/** Design labels by `<workspaceId>/<designId>/<version>`. */
export const memoryDesignLabels = (labels: Record<string, string> = {}): DesignLabels => ({
  labelOf: async (workspaceId, designId, version) => labels[`${workspaceId}/${designId}/${version}`],
});

/** A clock that stays where it is set. */
export const fixedClock = (iso: string): Clock & { set(iso: string): void } => {
  let now = new Date(iso);
  return { now: () => new Date(now), set: (next) => (now = new Date(next)) };
};

/** Every port in memory, sharing one call log (store calls and outbox calls interleaved). */
export function memoryRequestDeps(
  clock: Clock,
  labels?: Record<string, string>,
): RequestDeps & { requests: MemoryRequestStore; outbox: MemoryOutbox } {
  const requests = new MemoryRequestStore();
  return { clock, requests, designs: memoryDesignLabels(labels), outbox: new MemoryOutbox(requests.calls) };
}

/** Epoch seconds of an ISO time (retention fields). */
export const epoch = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** A file record of request `req_1` in workspace `ws_a`, done and kept a day from 2026-01-01T00:00Z unless overridden. */
export function fileRecord(over: Partial<FileRecord> = {}): FileRecord {
  return {
    requestId: "req_1",
    fileId: "f1",
    workspaceId: "ws_a",
    designId: "invoice",
    version: 3,
    fileName: "a.pdf",
    index: 0,
    status: "done",
    source: "async",
    mode: "multiple",
    shareType: "workspace",
    pageCount: 2,
    bytes: 1000,
    s3Key: "files/ws_a/req_1/f1.pdf",
    createdAt: "2026-01-01T00:00:00.000Z",
    completedAt: "2026-01-01T00:00:05.000Z",
    expiresAt: epoch("2026-01-02T00:00:00Z"),
    ...over,
  };
}

/** The job record of an async request `req_1` of `ws_a`, processing with `total` files unless overridden. */
export function jobRecord(over: Partial<JobRecord> = {}): JobRecord {
  return {
    requestId: "req_1",
    workspaceId: "ws_a",
    designId: "invoice",
    version: 3,
    designLabel: "Invoice",
    mode: "multiple",
    status: "processing",
    total: 2,
    settled: 0,
    createdAt: "2026-01-01T00:00:00.000Z",
    activeShard: "active",
    ...over,
  };
}
