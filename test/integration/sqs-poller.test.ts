import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { type FauxqsServer, startFauxqs } from "fauxqs";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { QueueDefinition } from "#shared/definitions/queues.ts";
import { createQueues } from "#infra/local/create-resources.ts";
import { type Poller, type PollerOptions, startSqsPoller } from "#infra/local/sqs-poller.ts";

/**
 * The local stack's stand-in for Lambda's SQS event-source mapping, against a real fauxqs.
 * Queues use a 1 s visibility time-out so redelivery and redrive take seconds, not minutes.
 */

const baseDefinition: QueueDefinition = {
  id: "t",
  envVar: "X",
  purpose: "test",
  consumer: "x",
  batchSize: 5,
  maxConcurrency: 2,
  visibilityTimeoutSeconds: 1,
  maxReceiveCount: 2,
  dlq: { id: "t-dlq", envVar: "Y", retentionDays: 1 },
};

interface QueuePair {
  url: string;
  arn: string;
  dlqUrl: string;
  def: QueueDefinition;
}

let server: FauxqsServer;
let sqs: SQSClient;
const pollers: Poller[] = [];

/** Creates a fresh queue + DLQ through createQueues; `id` keeps tests from sharing queues. */
async function queuePair(id: string, overrides: Partial<QueueDefinition> = {}): Promise<QueuePair> {
  const def: QueueDefinition = { ...baseDefinition, ...overrides, id, dlq: { ...baseDefinition.dlq, id: `${id}-dlq` } };
  const urls = await createQueues(sqs, { [id]: def });
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: urls[id], AttributeNames: ["QueueArn"] }),
  );
  return { url: urls[id]!, arn: Attributes!.QueueArn!, dlqUrl: urls[`${id}-dlq`]!, def };
}

async function sendBodies(url: string, bodies: string[]): Promise<void> {
  for (let i = 0; i < bodies.length; i += 10) {
    const chunk = bodies.slice(i, i + 10);
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: url,
        Entries: chunk.map((body, j) => ({ Id: String(j), MessageBody: body })),
      }),
    );
  }
}

function poll(q: QueuePair, handler: PollerOptions["handler"], extra: Partial<PollerOptions> = {}): Poller {
  const poller = startSqsPoller({
    name: "test",
    sqs,
    queueUrl: q.url,
    queueArn: q.arn,
    batchSize: q.def.batchSize,
    maxConcurrency: q.def.maxConcurrency,
    handler,
    waitSeconds: 1,
    ...extra,
  });
  pollers.push(poller);
  return poller;
}

async function waitFor(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 6000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Visible + in-flight + delayed messages of a queue. */
async function messagesLeft(url: string): Promise<number> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["All"] }));
  return (
    Number(Attributes!.ApproximateNumberOfMessages) +
    Number(Attributes!.ApproximateNumberOfMessagesNotVisible) +
    Number(Attributes!.ApproximateNumberOfMessagesDelayed)
  );
}

/** Drains a DLQ directly (not through the poller) and returns the bodies found. */
async function drainBodies(url: string): Promise<string[]> {
  const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  return (out.Messages ?? []).map((m) => m.Body!).sort();
}

beforeAll(async () => {
  // startFauxqs always listens on all interfaces; its `host` option only shapes queue URLs.
  // Without it, queue URLs carry the request's own host (127.0.0.1:<port>), as in the local stack.
  server = await startFauxqs({ port: 0, logger: false });
  sqs = new SQSClient({
    region: "us-east-1",
    endpoint: server.address,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((p) => p.stop()));
  vi.restoreAllMocks();
});

afterAll(async () => {
  sqs?.destroy();
  await server?.stop();
});

describe("createQueues", () => {
  it("creates the DLQ and the main queue with visibility and redrive from the definition", async () => {
    const urls = await createQueues(sqs, { t: baseDefinition });
    expect(Object.keys(urls).sort()).toEqual(["t", "t-dlq"]);
    const main = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: urls.t, AttributeNames: ["All"] }));
    const dlq = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: urls["t-dlq"], AttributeNames: ["All"] }));
    expect(main.Attributes!.VisibilityTimeout).toBe("1");
    expect(JSON.parse(main.Attributes!.RedrivePolicy!)).toEqual({
      deadLetterTargetArn: dlq.Attributes!.QueueArn,
      maxReceiveCount: 2,
    });
    expect(dlq.Attributes!.MessageRetentionPeriod).toBe(String(86400));
  });

  it("scales the visibility time-out but never below 1 s", async () => {
    const def = (id: string, visibilityTimeoutSeconds: number): QueueDefinition => ({
      ...baseDefinition,
      id,
      visibilityTimeoutSeconds,
      dlq: { ...baseDefinition.dlq, id: `${id}-dlq` },
    });
    const visibility = async (url: string | undefined) =>
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["VisibilityTimeout"] })))
        .Attributes!.VisibilityTimeout;
    const scaled = await createQueues(sqs, { scaled: def("scaled", 120) }, 0.05);
    const floored = await createQueues(sqs, { floored: def("floored", 10) }, 0.001);
    expect(await visibility(scaled.scaled)).toBe("6");
    expect(await visibility(floored.floored)).toBe("1");
  });
});

describe("startSqsPoller", () => {
  it("delivers batches of at most batchSize, Lambda-shaped, with at most maxConcurrency at once", async () => {
    const q = await queuePair("shape");
    const bodies = Array.from({ length: 12 }, (_, i) => JSON.stringify({ n: i }));
    const batches: SQSRecord[][] = [];
    const contexts: unknown[] = [];
    let active = 0;
    let maxActive = 0;
    await sendBodies(q.url, bodies);
    poll(
      q,
      async (event, context) => {
        active++;
        maxActive = Math.max(maxActive, active);
        batches.push(event.Records);
        contexts.push(context);
        await sleep(150);
        active--;
        return { batchItemFailures: [] };
      },
      { context: () => ({ functionName: "x" }) },
    );
    await waitFor(() => batches.flat().length >= 12, "12 records");

    const records = batches.flat();
    expect(records.map((r) => r.body).sort()).toEqual([...bodies].sort());
    expect(new Set(records.map((r) => r.messageId)).size).toBe(12);
    for (const batch of batches) {
      expect(batch.length).toBeGreaterThanOrEqual(1);
      expect(batch.length).toBeLessThanOrEqual(5);
    }
    expect(Math.max(...batches.map((b) => b.length))).toBeGreaterThan(1); // it really batches
    expect(maxActive).toBeLessThanOrEqual(2);
    expect(contexts.every((c) => (c as { functionName?: string }).functionName === "x")).toBe(true);

    for (const r of records) {
      expect(r.messageId).toMatch(/\S/);
      expect(r.receiptHandle).toMatch(/\S/);
      expect(r.eventSource).toBe("aws:sqs");
      expect(r.eventSourceARN).toBe(q.arn);
      expect(r.eventSourceARN).toMatch(/^arn:aws:sqs:us-east-1:\d{12}:platen-local-shape$/);
      expect(r.awsRegion).toBe("us-east-1");
      expect(r.attributes.ApproximateReceiveCount).toBe("1");
      expect(Number(r.attributes.SentTimestamp)).toBeGreaterThan(0);
      expect(Number(r.attributes.ApproximateFirstReceiveTimestamp)).toBeGreaterThanOrEqual(
        Number(r.attributes.SentTimestamp),
      );
      expect(r.attributes.SenderId).toMatch(/\S/);
      expect(r.md5OfBody).toMatch(/^[0-9a-f]{32}$/);
      expect(r.messageAttributes).toEqual({});
    }

    // Successful messages are deleted: nothing left, and nothing comes back after the visibility time-out.
    await waitFor(async () => (await messagesLeft(q.url)) === 0, "queue to be empty");
    await sleep(1500);
    expect(batches.flat()).toHaveLength(12);
  });

  it("passes message attributes through in Lambda's shape", async () => {
    const q = await queuePair("attrs");
    const seen: SQSRecord[] = [];
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: q.url,
        MessageBody: "with attributes",
        MessageAttributes: { requestId: { DataType: "String", StringValue: "r-1" } },
      }),
    );
    poll(q, async (event) => {
      seen.push(...event.Records);
    });
    await waitFor(() => seen.length === 1, "one record");
    expect(seen[0]!.messageAttributes).toEqual({
      requestId: expect.objectContaining({ dataType: "String", stringValue: "r-1" }),
    });
  });

  it("redelivers only the batchItemFailures, then moves them to the DLQ after maxReceiveCount", async () => {
    const q = await queuePair("partial");
    const receives = new Map<string, string[]>(); // body → ApproximateReceiveCount of each delivery
    await sendBodies(q.url, ["ok-1", "ok-2", "ok-3", "fail-1", "fail-2"]);
    poll(q, async (event: SQSEvent): Promise<SQSBatchResponse> => {
      for (const r of event.Records)
        receives.set(r.body, [...(receives.get(r.body) ?? []), r.attributes.ApproximateReceiveCount]);
      return {
        batchItemFailures: event.Records.filter((r) => r.body.startsWith("fail")).map((r) => ({
          itemIdentifier: r.messageId,
        })),
      };
    });

    await waitFor(async () => (await messagesLeft(q.dlqUrl)) === 2, "two messages in the DLQ", 8000);
    // The failures came back once after the 1 s visibility time-out, with the count incremented…
    expect(receives.get("fail-1")).toEqual(["1", "2"]);
    expect(receives.get("fail-2")).toEqual(["1", "2"]);
    // …while the successes were delivered exactly once.
    for (const ok of ["ok-1", "ok-2", "ok-3"]) expect(receives.get(ok), ok).toEqual(["1"]);
    expect(await messagesLeft(q.url)).toBe(0);
    expect(await drainBodies(q.dlqUrl)).toEqual(["fail-1", "fail-2"]);
  });

  it("fails the whole batch when the handler throws", async () => {
    const q = await queuePair("throws", { maxReceiveCount: 5 });
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const thrownBatches: string[][] = [];
    const deliveries: { body: string; count: string }[] = [];
    await sendBodies(q.url, ["a", "b", "c"]);
    poll(
      q,
      async (event) => {
        for (const r of event.Records) deliveries.push({ body: r.body, count: r.attributes.ApproximateReceiveCount });
        // First delivery of anything: blow up, even though the batch may hold several messages.
        if (event.Records.some((r) => r.attributes.ApproximateReceiveCount === "1")) {
          thrownBatches.push(event.Records.map((r) => r.body));
          throw new Error("boom");
        }
        return undefined;
      },
      { maxConcurrency: 1 },
    );

    await waitFor(async () => (await messagesLeft(q.url)) === 0, "queue to drain", 8000);
    expect(thrownBatches.length).toBeGreaterThan(0);
    // Every message of a batch that threw was delivered again, including ones that were not its first receive.
    for (const batch of thrownBatches) {
      for (const body of batch) {
        const counts = deliveries.filter((d) => d.body === body).map((d) => Number(d.count));
        expect(Math.max(...counts), body).toBeGreaterThanOrEqual(2);
      }
    }
    for (const body of ["a", "b", "c"]) {
      expect(deliveries.filter((d) => d.body === body).map((d) => d.count)[0], body).toBe("1");
    }
    expect(await messagesLeft(q.dlqUrl)).toBe(0);
    expect(errors.mock.calls.some((c) => String(c[0]).includes("batch failed: boom"))).toBe(true);
  });

  it("treats a handler returning nothing as full success", async () => {
    const q = await queuePair("void");
    let seen = 0;
    await sendBodies(q.url, ["x", "y"]);
    poll(q, async (event) => {
      seen += event.Records.length;
    });
    await waitFor(async () => seen === 2 && (await messagesLeft(q.url)) === 0, "both handled and deleted");
    await sleep(1300);
    expect(seen).toBe(2);
  });

  it("stop() ends every loop within the long-poll wait and invokes nothing afterwards", async () => {
    const q = await queuePair("stop", { maxConcurrency: 4 });
    let calls = 0;
    const poller = poll(q, async () => {
      calls++;
    });
    await sleep(200); // all four loops are now inside a long poll
    const started = Date.now();
    await poller.stop();
    expect(Date.now() - started).toBeLessThan(1500); // waitSeconds is 1

    await sqs.send(new SendMessageCommand({ QueueUrl: q.url, MessageBody: "after stop" }));
    await sleep(500);
    expect(calls).toBe(0);
    expect(await drainBodies(q.url)).toEqual(["after stop"]);
  });

  it("stop() returns at once with waitSeconds 0", async () => {
    const q = await queuePair("stop-fast");
    const poller = poll(q, async () => undefined, { waitSeconds: 0 });
    await sleep(100);
    const started = Date.now();
    await poller.stop();
    expect(Date.now() - started).toBeLessThan(300);
  });
});
