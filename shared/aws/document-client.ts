import { Agent as HttpAgent, type IncomingMessage, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactGetCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { marshall, unmarshall } from "@aws-sdk/util-dynamodb";
import { SignatureV4 } from "@smithy/signature-v4";
import { type KeyNodes, mapKeyNodes } from "./key-nodes.ts";

/** What the app uses of a document client: `send` with lib-dynamodb commands. */
export type DocumentSender = Pick<DynamoDBDocumentClient, "send">;

/** lib-dynamodb command → DynamoDB operation (by class, so minified bundles work too). */
const operations = new Map<unknown, string>([
  [GetCommand, "GetItem"],
  [PutCommand, "PutItem"],
  [UpdateCommand, "UpdateItem"],
  [DeleteCommand, "DeleteItem"],
  [QueryCommand, "Query"],
  [ScanCommand, "Scan"],
  [BatchGetCommand, "BatchGetItem"],
  [BatchWriteCommand, "BatchWriteItem"],
  [TransactGetCommand, "TransactGetItems"],
  // TransactWriteCommand stays with the SDK: it fills in the idempotency token retries rely on.
]);

/** The parts of a lib-dynamodb command read here (public fields of every such command). */
interface DocumentCommand {
  input: Record<string, unknown>;
  inputKeyNodes: KeyNodes;
  outputKeyNodes: KeyNodes;
}

const MARSHALL = { removeUndefinedValues: true, convertTopLevelContainer: true };
const UNMARSHALL = { convertWithoutMapWrapper: true };
const MAX_ATTEMPTS = 3;
const DEFAULT_TIMEOUT_MS = 10_000;
const THROTTLING = new Set(["ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded"]);
const TRANSIENT_STATUS = new Set([500, 502, 503, 504]);
const NETWORK_ERRORS = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EAI_AGAIN", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH"]);

/**
 * The document commands the app sends, spoken as DynamoDB's JSON protocol directly: same
 * inputs, outputs (marshalled by the commands' own key-node maps, as lib-dynamodb does) and
 * error names, signed with SigV4 from the SDK client's credentials. Why: the SDK's generic
 * middleware stack (endpoint rules, schema serde, retry and user-agent middlewares) cost
 * 0.5–1 ms of CPU per call, nearly half of a sync render's handler CPU, and every request
 * pays two such calls before it may render. Any other command goes to the SDK's client.
 */
/** `timeoutMs`: how long a call may stay silent before it fails (not retried), default 10 s. */
export function createDocumentClient(opts: { client: DynamoDBClient; fallback: DocumentSender; region: string; endpoint?: string; timeoutMs?: number }): DocumentSender {
  const { client, fallback, region } = opts;
  const url = new URL(opts.endpoint ?? `https://dynamodb.${region}.amazonaws.com`);
  const secure = url.protocol === "https:";
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 50 }) : new HttpAgent({ keepAlive: true, maxSockets: 50 });
  const signer = new SignatureV4({
    service: "dynamodb",
    region,
    credentials: client.config.credentials,
    sha256: client.config.sha256,
  });
  const post = async (operation: string, body: string): Promise<WireResponse> => {
    const headers: Record<string, string> = { host: url.host, "content-type": "application/x-amz-json-1.0", "x-amz-target": `DynamoDB_20120810.${operation}` };
    // Lambda's trace header, as the SDK's recursion-detection middleware adds it (X-Ray, loop detection).
    const trace = process.env._X_AMZN_TRACE_ID;
    if (trace && process.env.AWS_LAMBDA_FUNCTION_NAME) headers["x-amzn-trace-id"] = trace;
    const signed = await signer.sign({ method: "POST", protocol: url.protocol, hostname: url.hostname, port: url.port ? Number(url.port) : undefined, path: "/", query: {}, headers, body });
    return exchange(secure, { host: url.hostname.replace(/^\[(.*)\]$/, "$1"), port: url.port, agent, headers: signed.headers, timeout: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS }, body);
  };
  const send = async (command: object) => {
    const operation = operations.get(command.constructor);
    if (!operation) return (fallback.send as (c: object) => Promise<unknown>)(command);
    const { input, inputKeyNodes, outputKeyNodes } = command as DocumentCommand;
    const body = JSON.stringify(mapKeyNodes(input, (v) => marshall(v, MARSHALL), inputKeyNodes), binaryAsBase64);
    const res = await withRetries(() => post(operation, body));
    const output = checked(res);
    return { ...mapKeyNodes(output, (v) => unmarshall(decodeBinary(v) as never, UNMARSHALL), outputKeyNodes), $metadata: { httpStatusCode: res.status, requestId: res.requestId, attempts: res.attempts } };
  };
  return { send: send as unknown as DocumentSender["send"] };
}

/** JSON replacer: binary attribute values travel as base64 (`this[key]` is the value before Buffer's toJSON). */
function binaryAsBase64(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Uint8Array ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString("base64") : value;
}

/** The reverse for an attribute value read from the wire: `B` and `BS` become bytes, as the SDK returns them. */
function decodeBinary(av: unknown): unknown {
  if (typeof av !== "object" || av === null) return av;
  const v = av as { B?: string; BS?: string[]; M?: Record<string, unknown>; L?: unknown[] };
  const bytes = (s: string) => new Uint8Array(Buffer.from(s, "base64"));
  if (typeof v.B === "string") return { B: bytes(v.B) };
  if (Array.isArray(v.BS)) return { BS: v.BS.map(bytes) };
  if (v.M) return { M: Object.fromEntries(Object.entries(v.M).map(([k, x]) => [k, decodeBinary(x)])) };
  if (v.L) return { L: v.L.map(decodeBinary) };
  return av;
}

interface WireResponse {
  status: number;
  requestId?: string;
  /** The body, parsed; undefined when it was not a JSON object. */
  json?: Record<string, unknown>;
  /** `x-amzn-errortype`, where the error type may be named instead of (or besides) the body. */
  errorType?: string;
}

function exchange(secure: boolean, options: { host: string; port: string; agent: HttpAgent; headers: Record<string, string>; timeout: number }, body: string): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers, "content-length": String(Buffer.byteLength(body)) };
    const req = (secure ? httpsRequest : httpRequest)({ ...options, method: "POST", path: "/", headers }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : {};
        } catch {
          json = undefined;
        }
        const header = (name: string) => res.headers[name] as string | undefined;
        resolve({ status: res.statusCode ?? 0, requestId: header("x-amzn-requestid"), errorType: header("x-amzn-errortype"), json: typeof json === "object" && json !== null ? (json as Record<string, unknown>) : undefined });
      });
    });
    // Not retried: DynamoDB may have applied the request (an ADD would count twice).
    req.on("timeout", () => req.destroy(Object.assign(new Error(`DynamoDB did not answer within ${options.timeout} ms`), { name: "TimeoutError" })));
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * The SDK's standard retry policy in short: 3 attempts for network errors, 500/502/503/504
 * and throttling, with full-jitter exponential backoff (base 25 ms, throttling 1 s). A 200
 * whose body cannot be read is not retried: the write may have been applied.
 */
async function withRetries(call: () => Promise<WireResponse>): Promise<WireResponse & { attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    let throttled = false;
    try {
      const res = await call();
      throttled = res.status === 429 || THROTTLING.has(errorName(res));
      if (!(throttled || TRANSIENT_STATUS.has(res.status)) || attempt === MAX_ATTEMPTS) return { ...res, attempts: attempt };
    } catch (err) {
      if (!NETWORK_ERRORS.has((err as { code?: string }).code ?? "") || attempt === MAX_ATTEMPTS) throw err;
    }
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(20_000, (throttled ? 1000 : 25) * 2 ** (attempt - 1))));
  }
}

/** As the SDK reads it: `__type`, else `code`, else the header; namespace before `#` and details after `:` or `,` dropped. */
function errorName(res: WireResponse): string {
  const raw = String(res.json?.__type ?? res.json?.code ?? res.errorType ?? "");
  return raw.split(/[:,]/)[0]!.split("#").pop()!.trim();
}

/** The output of a call; otherwise throws an error shaped like the SDK's service exceptions (`name` = the DynamoDB error type). */
function checked(res: WireResponse & { attempts: number }): Record<string, unknown> {
  const $metadata = { httpStatusCode: res.status, requestId: res.requestId, attempts: res.attempts };
  if (res.status === 200 && res.json) return res.json;
  if (res.status === 200) throw Object.assign(new Error("DynamoDB answered 200 with a body that is not JSON"), { name: "DeserializationError", $fault: "client", $metadata });
  const { __type: _type, code: _code, message, Message, ...rest } = res.json ?? {};
  const err = new Error(String(message ?? Message ?? "UnknownError"));
  err.name = errorName(res) || "Unknown";
  throw Object.assign(err, rest, { $fault: res.status >= 500 ? "server" : "client", $metadata });
}
