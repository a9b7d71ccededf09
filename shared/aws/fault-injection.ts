/**
 * Named faults for the fault-injection tests (test/faults/): a rule makes matching AWS
 * calls of this process fail, throttle or kill the process before they are sent. Rules
 * are armed only through the local stack's test hooks (`POST /__local/faults`, with
 * PLATEN_TEST_HOOKS=1); `awsClients()` installs the check only then, so in a plain
 * `npm start` nothing here runs, and the deployed bundles do not contain this module at all
 * (shared/test-hooks.d.ts).
 */
export interface FaultRule {
  service: "dynamodb" | "s3" | "sqs";
  /** The command class, e.g. `SendMessageBatchCommand`, `UpdateCommand`, `PutObjectCommand`. */
  command: string;
  /** A substring of the call's table name, bucket or queue URL. */
  target?: string;
  /** A substring of the call's key, update expression or object key (tells calls on one table apart). */
  detail?: string;
  /**
   * `fail`: a 500-like error; `throttle`: DynamoDB's throughput error; `crash`: SIGKILL this process;
   * `delay`: send the call after `delayMs` (opens a race window between two steps).
   */
  action: "fail" | "throttle" | "crash" | "delay";
  delayMs?: number;
  /** How many matching calls to hit (default 1); the ones skipped first do not count. */
  times?: number;
  skip?: number;
}

interface ArmedRule extends FaultRule {
  skipped: number;
  hits: number;
}

let armed: ArmedRule[] = [];

/** Replaces the armed rules (an empty list disarms every fault). */
export function armFaults(rules: FaultRule[]): void {
  armed = rules.map((r) => ({ ...r, skipped: 0, hits: 0 }));
}

/** How often each armed rule fired, in arming order. */
export const faultHits = (): number[] => armed.map((r) => r.hits);

interface Sendable {
  send(command: unknown, ...rest: unknown[]): Promise<unknown>;
}

/** Makes `client.send` consult the armed rules first. */
export function injectFaults<T extends Sendable>(service: FaultRule["service"], client: T): T {
  const send = client.send.bind(client);
  client.send = ((command: unknown, ...rest: unknown[]) => {
    const rule = armed.length ? matching(service, command as { input?: Record<string, unknown> }) : undefined;
    if (rule?.action === "delay") {
      return new Promise((r) => setTimeout(r, rule.delayMs ?? 100)).then(() => send(command, ...rest));
    }
    if (rule) return Promise.reject(fire(rule));
    return send(command, ...rest);
  }) as T["send"];
  return client;
}

function matching(
  service: FaultRule["service"],
  command: { constructor: { name: string }; input?: Record<string, unknown> },
): ArmedRule | undefined {
  const input = command.input ?? {};
  const target = [input.TableName, input.Bucket, input.QueueUrl, ...Object.keys((input.RequestItems as object) ?? {})]
    .filter(Boolean)
    .join(" ");
  const detail = JSON.stringify([
    input.Key,
    input.UpdateExpression,
    typeof input.Key === "string" ? input.Key : undefined,
    // A put names its item's key: tells an audit entry (AUDIT#…) from a key item (KEY#…).
    input.Item && { pk: (input.Item as Record<string, unknown>).pk, sk: (input.Item as Record<string, unknown>).sk },
  ]);
  for (const rule of armed) {
    if (rule.service !== service || rule.command !== command.constructor.name) continue;
    if (rule.target && !target.includes(rule.target)) continue;
    if (rule.detail && !detail.includes(rule.detail)) continue;
    if (rule.hits >= (rule.times ?? 1)) continue;
    if (rule.skipped < (rule.skip ?? 0)) {
      rule.skipped += 1;
      continue;
    }
    rule.hits += 1;
    return rule;
  }
  return undefined;
}

function fire(rule: ArmedRule): Error {
  if (rule.action === "crash") {
    console.log(`[faults] crash at ${rule.service} ${rule.command}`);
    process.kill(process.pid, "SIGKILL");
  }
  const err = new Error(`injected fault: ${rule.action} on ${rule.service} ${rule.command}`);
  err.name = rule.action === "throttle" ? "ProvisionedThroughputExceededException" : "InternalFailure";
  return err;
}
