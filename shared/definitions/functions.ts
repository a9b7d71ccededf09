import type { BucketId } from "./buckets.ts";
import type { QueueId } from "./queues.ts";
import type { TableId } from "./tables.ts";

/** What a function may touch; the CDK construct turns it into least-privilege grants. */
export interface FunctionAccess {
  tablesRead?: TableId[];
  tablesWrite?: TableId[];
  bucketsRead?: BucketId[];
  bucketsWrite?: BucketId[];
  /** Per bucket of `bucketsWrite`, the key prefixes the function may write when not the whole bucket (e.g. `zips/`). */
  bucketsWritePrefix?: Partial<Record<BucketId, string | readonly string[]>>;
  queuesSend?: QueueId[];
  /** Sends to the dead-letter queue of these queues itself (the dispatcher dead-letters deliveries). */
  deadLettersSend?: QueueId[];
  /** Reads the identity key seeds (Secrets Manager in AWS, the data dir locally): signing and cookie keys. */
  identityKeys?: boolean;
  /**
   * The key that seals signing identities' private keys (shared/signing/README.md#identities): `seal` to
   * store new ones (KMS GenerateDataKey), `open` to sign with them (KMS Decrypt).
   */
  signingKeys?: "seal" | "open";
}

/** The key prefixes a function may write in a bucket of its `bucketsWrite` (`""`: the whole bucket). */
export function writePrefixes(access: FunctionAccess, bucket: BucketId): readonly string[] {
  const prefixes = access.bucketsWritePrefix?.[bucket] ?? "";
  return typeof prefixes === "string" ? [prefixes] : prefixes;
}

export interface FunctionDefinition {
  id: string;
  /** Entry file relative to the repository root; its `handler` export is the Lambda handler. */
  entry: string;
  timeoutSeconds: number;
  memoryMb: number;
  /** Ships @sparticuz/chromium and the fonts; needs memory and /tmp space. */
  chromium?: boolean;
  /** A front end whose handler streams its responses (front-ends.ts: its proxy API uses STREAM mode). */
  streaming?: boolean;
  access: FunctionAccess;
}

const readDesigns: FunctionAccess = { tablesRead: ["workspaces", "designs"], bucketsRead: ["designs"] };

/**
 * Every API function authenticates (see README.md#authentication): workspaces for appkeys, identity and oauth
 * for Bearer tokens.
 */
const api = (id: string, access: FunctionAccess = {}): FunctionDefinition => ({
  id,
  entry: `functions/api/${id}.ts`,
  timeoutSeconds: 29,
  memoryMb: 512,
  access: {
    ...access,
    tablesRead: [
      ...new Set(["workspaces" as const, "identity" as const, "oauth" as const, ...(access.tablesRead ?? [])]),
    ],
  },
});

const generation: FunctionAccess = {
  tablesRead: ["workspaces", "designs", "webhooks"],
  tablesWrite: ["requests", "files", "usage"],
  bucketsRead: ["designs"],
  bucketsWrite: ["files"],
  queuesSend: ["render", "webhook"],
};

/**
 * Webhook endpoints live in `webhooks`; the audit log and key items in `workspaces`. Login
 * sessions are verified with the identity cookie keys.
 */
const manageWebhooks: FunctionAccess = {
  tablesRead: ["designs"],
  tablesWrite: ["webhooks", "workspaces"],
  identityKeys: true,
};

/**
 * The management routes (OpenAPI rotateApplicationKey, shared/webhooks/README.md#managing-endpoints-over-http),
 * one function per route file.
 */
const managementFunctions = () => ({
  "list-webhook-endpoints": api("list-webhook-endpoints", { tablesRead: ["webhooks", "designs"], identityKeys: true }),
  "create-webhook-endpoint": api("create-webhook-endpoint", manageWebhooks),
  "update-webhook-endpoint": api("update-webhook-endpoint", manageWebhooks),
  "delete-webhook-endpoint": api("delete-webhook-endpoint", manageWebhooks),
  "regenerate-webhook-secret": api("regenerate-webhook-secret", manageWebhooks),
  "read-webhook-secret": api("read-webhook-secret", {
    tablesRead: ["webhooks"],
    tablesWrite: ["workspaces"],
    identityKeys: true,
  }),
  "set-workspace-webhook": api("set-workspace-webhook", manageWebhooks),
  "rotate-application-key": api("rotate-application-key", { tablesWrite: ["workspaces"], identityKeys: true }),
  // Signing identities live in `workspaces` beside the audit log (shared/signing/README.md#identities).
  "list-signing-identities": api("list-signing-identities", { identityKeys: true }),
  "create-signing-identity": api("create-signing-identity", {
    tablesWrite: ["workspaces"],
    identityKeys: true,
    signingKeys: "seal",
  }),
  "delete-signing-identity": api("delete-signing-identity", { tablesWrite: ["workspaces"], identityKeys: true }),
  // The kept records' retention (shared/records/README.md#retention), in the records table; changes audited.
  "get-record-retention": api("get-record-retention", { tablesRead: ["records"], identityKeys: true }),
  "set-record-retention": api("set-record-retention", {
    tablesWrite: ["records", "workspaces"],
    identityKeys: true,
  }),
});

/**
 * The design API (shared/authoring/README.md): designs and their objects, the gallery (in
 * `designs`), the audit log (`workspaces`), user e-mails and client names for `createdBy`
 * (identity, oauth: read by every API function), login sessions (identity keys).
 */
const manageDesigns: FunctionAccess = {
  tablesRead: ["designs", "workspaces"],
  tablesWrite: ["designs", "workspaces"],
  bucketsRead: ["designs"],
  bucketsWrite: ["designs"],
  identityKeys: true,
};

/**
 * Every Lambda of the service. API functions are named after their route's file.
 * Whoever records a generation event (sync generation, the render worker, the DLQ handler)
 * also writes the webhook delivery log and queues deliveries, hence write on `webhooks`.
 */
export const functions = {
  "health-check": { ...api("health-check"), access: {} },
  "get-openapi": { ...api("get-openapi"), access: {} },
  "list-designs": api("list-designs", { ...readDesigns, tablesWrite: ["usage"] }),
  "get-design-parameters": api("get-design-parameters", { ...readDesigns, tablesWrite: ["usage"] }),
  "get-design-thumbnail": api("get-design-thumbnail", { ...readDesigns, tablesWrite: ["usage"] }),
  "generate-sync": {
    // Reads the stored PDFs back for an idempotent replay (replay-sync.ts).
    // Signs the files of signed designs: opens the identity's key and records its use (workspaces).
    ...api("generate-sync", {
      ...generation,
      // `records`: a record design's files are kept as records (shared/records/README.md).
      tablesWrite: [...(generation.tablesWrite ?? []), "webhooks", "workspaces", "records"],
      bucketsRead: [...(generation.bucketsRead ?? []), "files"],
      bucketsWrite: [...(generation.bucketsWrite ?? []), "records"],
      signingKeys: "open",
    }),
    timeoutSeconds: 60,
    memoryMb: 3008,
    chromium: true,
  },
  "generate-async": api("generate-async", generation),
  // A sync file's PDF is its commit: readers look at the object of a `storing` record and write its
  // `done` (file-store.ts `resolveStored`).
  "get-status": api("get-status", {
    tablesRead: ["requests"],
    tablesWrite: ["usage", "files"],
    bucketsRead: ["files"],
  }),
  "download-files": api("download-files", {
    tablesRead: ["requests", "designs"],
    tablesWrite: ["usage", "files"],
    bucketsRead: ["files"],
    // Large request ZIPs are written once to zips/ and served by presigned URL (archive-link.ts);
    // nothing else of the bucket is writable to it.
    bucketsWrite: ["files"],
    bucketsWritePrefix: { files: "zips/" },
  }),
  ...managementFunctions(),
  // Kept records (shared/records/README.md#the-api): read, and each read written to the audit log (`workspaces`).
  "record-routes": api("record-routes", {
    tablesRead: ["records"],
    tablesWrite: ["workspaces"],
    bucketsRead: ["records"],
  }),
  "design-routes": api("design-routes", manageDesigns),
  // Publishing renders the thumbnail (the sample document), a preview the PDF; the preview's
  // rate window lives in `usage`.
  "design-render": {
    ...api("design-render", { ...manageDesigns, tablesWrite: [...(manageDesigns.tablesWrite ?? []), "usage"] }),
    memoryMb: 3008,
    chromium: true,
  },
  render: {
    id: "render",
    entry: "functions/render/render-files.ts",
    timeoutSeconds: 120,
    memoryMb: 3008,
    chromium: true,
    access: {
      tablesRead: ["workspaces", "designs"],
      // `workspaces`: a signed design's file records its identity's use in the audit log.
      // `records`: a record design's files are kept as records (shared/records/README.md).
      tablesWrite: ["requests", "files", "usage", "webhooks", "workspaces", "records"],
      bucketsRead: ["designs", "files"],
      bucketsWrite: ["files", "records"],
      // `render`: a file whose workspace is at its cap goes back to the queue (fair-render.ts).
      queuesSend: ["webhook", "render"],
      signingKeys: "open",
    },
  },
  interrupted: {
    id: "interrupted",
    entry: "functions/render/fail-interrupted.ts",
    timeoutSeconds: 60,
    memoryMb: 512,
    access: { tablesWrite: ["requests", "files", "webhooks"], queuesSend: ["webhook"] },
  },
  // `{auth_url}` (see shared/identity/README.md#auth_url): oidc-provider, login and consent screens, the public
  // gallery. Writes oidc-provider's models and login counters (oauth); users and clients are read-only.
  auth: {
    id: "auth",
    entry: "functions/auth/auth-server.ts",
    timeoutSeconds: 29,
    // scrypt (32 MiB, CPU-bound) on every login: more memory buys the CPU share.
    memoryMb: 1024,
    access: {
      tablesRead: ["workspaces", "designs", "identity"],
      tablesWrite: ["oauth"],
      // The gallery's thumbnails (shared/identity/public-templates.ts).
      bucketsRead: ["designs"],
      identityKeys: true,
    },
  },
  // The sweeper (schedules.ts): fails stalled requests (their files, pages and events) and
  // relays outbox events, so it writes what the render worker and the DLQ consumer write.
  sweep: {
    id: "sweep",
    entry: "functions/sweep/sweep-stalled.ts",
    timeoutSeconds: 300,
    memoryMb: 512,
    access: {
      tablesRead: ["workspaces"],
      tablesWrite: ["requests", "files", "usage", "webhooks"],
      bucketsRead: ["files"],
      bucketsWrite: ["files"],
      queuesSend: ["webhook"],
    },
  },
  // Webhook dispatcher (see shared/webhooks/README.md#delivery-retries-and-the-delivery-log): reads file
  // records for payloads, writes the delivery log and endpoint state (410 disables), re-queues its own back-off
  // messages.
  dispatch: {
    id: "dispatch",
    entry: "functions/dispatch/deliver-webhook.ts",
    timeoutSeconds: 30,
    memoryMb: 512,
    // A sync file's record reads `done` from its PDF's metadata (file-store.ts `resolveStored`), without writing it.
    access: {
      tablesRead: ["files"],
      tablesWrite: ["webhooks"],
      bucketsRead: ["files"],
      queuesSend: ["webhook"],
      deadLettersSend: ["webhook"],
    },
  },
  // {site} (functions/site): server-rendered pages. Reads what the status and
  // download endpoints read, streams file bytes from the same bucket, counts passcode
  // attempts in `usage`, keeps invitations next to the file records and its cookie key
  // in `workspaces`; the login form reads users and memberships (identity), counts
  // attempts in `oauth` and signs the session with the identity keys; settings write
  // webhook endpoints. The design studio (functions/site/README.md#the-design-studio) does
  // what the design API's two functions do for a login session: it writes designs, drafts,
  // bundles and thumbnails (designs table and bucket), counts previews in `usage`, and renders
  // previews and thumbnails itself, hence Chromium. Its records page reads kept records and their PDFs
  // (records table and bucket), each read audited in `workspaces`.
  site: {
    id: "site",
    entry: "functions/site/handler.ts",
    timeoutSeconds: 29,
    // Chromium needs ≥ 2048 MB; scrypt on every login is CPU-bound and gains from it too.
    memoryMb: 2048,
    chromium: true,
    streaming: true,
    access: {
      tablesRead: ["workspaces", "designs", "requests", "files", "webhooks", "identity", "records"],
      tablesWrite: ["usage", "files", "workspaces", "webhooks", "oauth", "designs"],
      bucketsRead: ["files", "designs", "records"],
      // Output history serves large request ZIPs as the download route does, and the file view
      // caches page images: zips/ and pages/ only of files, never the PDFs.
      bucketsWrite: ["files", "designs"],
      bucketsWritePrefix: { files: ["zips/", "pages/"] },
      identityKeys: true,
    },
  },
} as const satisfies Record<string, FunctionDefinition>;

export type FunctionId = keyof typeof functions;
