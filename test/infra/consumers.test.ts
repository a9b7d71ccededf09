import { beforeAll, describe, expect, it } from "vitest";
import { functions, queues, schedules } from "#shared/definitions/index.ts";
import { VISIBILITY_FACTOR } from "../../infra/stack/data.ts";
import { resolveResource } from "./iam.ts";
import {
  definitionsWithConsumers,
  logicalId,
  resourcesOfType,
  SYNTH_TIMEOUT_MS,
  type Synthesized,
  synthStack,
} from "./synth.ts";

describe("queue consumers with the shared definitions", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthStack();
  }, SYNTH_TIMEOUT_MS);

  it("wires an event-source mapping only for consumers that exist in functions.ts", () => {
    const consumers = Object.values(queues).flatMap((q) => [
      q.consumer,
      ...("consumer" in q.dlq ? [q.dlq.consumer] : []),
    ]);
    const existing = consumers.filter((c) => c in functions);
    expect(resourcesOfType(s.json, "AWS::Lambda::EventSourceMapping")).toHaveLength(existing.length);
  });

  it("runs the sweeper on an EventBridge schedule (stalled requests, outbox relay)", () => {
    const rules = resourcesOfType(s.json, "AWS::Events::Rule");
    const sweep = logicalId(s.stack, s.stack.functions[schedules.sweep.function]!.fn);
    const rule = rules.find(([, p]) =>
      (p.Targets as { Arn: unknown }[]).some((t) => resolveResource(t.Arn).logicalId === sweep),
    );
    expect(rule, "a rule targeting the sweep function").toBeDefined();
    expect(rule![1].ScheduleExpression).toBe(`rate(${schedules.sweep.everyMinutes} minutes)`);
    expect(rule![1].State).toBe("ENABLED");
    const permissions = resourcesOfType(s.json, "AWS::Lambda::Permission").filter(
      ([, p]) => p.Principal === "events.amazonaws.com",
    );
    expect(permissions.some(([, p]) => resolveResource(p.FunctionName).logicalId === sweep)).toBe(true);
  });
  it("gives the render worker its fleet-wide fair share and lets it send deferred files back to its queue", () => {
    const render = s.json.Resources[logicalId(s.stack, s.stack.functions.render!.fn)]!.Properties!;
    const env = (render.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(env.PLATEN_RENDER_WORKSPACE_WORK_SECONDS).toBe(String(queues.render.workspaceWorkSeconds));
    expect(resolveResource(env.QUEUE_RENDER).logicalId).toBe(logicalId(s.stack, s.stack.data.queues.render!.queue));
    expect(functions.render.access.queuesSend).toContain("render");
  });
});

describe("queue consumers once their functions land (stand-ins)", () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthStack({ definitions: definitionsWithConsumers() });
  }, SYNTH_TIMEOUT_MS);

  const mappingFor = (queueLogicalId: string) =>
    resourcesOfType(s.json, "AWS::Lambda::EventSourceMapping").find(
      ([, p]) => resolveResource(p.EventSourceArn).logicalId === queueLogicalId,
    )?.[1];

  it("maps each queue to its consumer with batch size, max concurrency and partial batch failures", () => {
    for (const def of Object.values(queues)) {
      const mapping = mappingFor(logicalId(s.stack, s.stack.data.queues[def.id]!.queue))!;
      expect(mapping, def.id).toBeDefined();
      expect(mapping.FunctionName.Ref).toBe(logicalId(s.stack, s.stack.functions[def.consumer]!.fn));
      expect(mapping.BatchSize).toBe(def.batchSize);
      expect(mapping.ScalingConfig).toEqual({ MaximumConcurrency: def.maxConcurrency });
      expect(mapping.FunctionResponseTypes).toEqual(["ReportBatchItemFailures"]);
    }
  });

  it("maps DLQs that name a consumer (render-dlq → interrupted) and sizes their visibility", () => {
    const render = s.stack.data.queues.render!;
    const mapping = mappingFor(logicalId(s.stack, render.dlq))!;
    expect(mapping.FunctionName.Ref).toBe(logicalId(s.stack, s.stack.functions.interrupted!.fn));
    expect(mapping.FunctionResponseTypes).toEqual(["ReportBatchItemFailures"]);
    const dlq = s.json.Resources[logicalId(s.stack, render.dlq)]!.Properties!;
    expect(dlq.VisibilityTimeout).toBe(VISIBILITY_FACTOR * 30);
    expect(mappingFor(logicalId(s.stack, s.stack.data.queues.webhook!.dlq))).toBeUndefined();
  });

  it("keeps every visibility time-out ≥ 6 × its consumer's time-out (from the template)", () => {
    const mappings = resourcesOfType(s.json, "AWS::Lambda::EventSourceMapping");
    expect(mappings).toHaveLength(3);
    for (const [, m] of mappings) {
      const queue = s.json.Resources[resolveResource(m.EventSourceArn).logicalId!]!.Properties!;
      const fn = s.json.Resources[m.FunctionName.Ref]!.Properties!;
      expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(VISIBILITY_FACTOR * fn.Timeout);
    }
  });

  it("tells each consumer its own queue URL", () => {
    const env = s.json.Resources[logicalId(s.stack, s.stack.functions.dispatch!.fn)]!.Properties!.Environment.Variables;
    expect(env.QUEUE_WEBHOOK).toEqual({ Ref: logicalId(s.stack, s.stack.data.queues.webhook!.queue) });
  });

  it("refuses to synthesize a consumer slower than its queue's visibility allows", () => {
    const tooSlow = definitionsWithConsumers({
      render: { timeoutSeconds: queues.render.visibilityTimeoutSeconds / VISIBILITY_FACTOR + 1 },
    });
    expect(() => synthStack({ definitions: tooSlow })).toThrow(/visibility time-out 720 s < 6 × render/);
  });
});
