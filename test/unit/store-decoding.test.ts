import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTableInputs } from "#infra/local/create-resources.ts";
import { dynamoAuditLog } from "#shared/audit/audit-log.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { StoredItemError } from "#shared/aws/stored-item.ts";
import type { Clock } from "#shared/clock.ts";
import { dynamoDesignStore } from "#shared/designs/design-store.ts";
import { GALLERY_PK, templateKey } from "#shared/designs/gallery.ts";
import { dynamoGallery } from "#shared/designs/gallery-store.ts";
import { type FileRecord, getFileRecord, putFileRecords } from "#shared/generation/store/file-store.ts";
import { getJob, type JobRecord, listActiveJobs, markSettled, putJob } from "#shared/generation/store/job-store.ts";
import { dynamoOAuthClients } from "#shared/identity/oauth-clients.ts";
import { dynamoUsers } from "#shared/identity/users.ts";
import { dynamoInvitationStore } from "#shared/site/invitation-store.ts";
import { type DeliveryRecord, dynamoDeliveryStore } from "#shared/webhooks/delivery-store.ts";
import { dynamoEndpointStore } from "#shared/webhooks/endpoint-store.ts";
import { dynamoWorkspaces } from "#shared/workspaces/workspace-store.ts";
import { OUTBOX_SHARD, relayOutbox } from "#shared/webhooks/event-outbox.ts";
import { startInProcessDynalite } from "../helpers/in-process-dynalite.ts";

/**
 * The stores' DynamoDB adapters on dynalite: every item they read is decoded with the store's
 * zod schema, so a good item comes back typed (keys and TTL attributes left out) and a malformed
 * one is refused with a StoredItemError naming the table and the item's key, never passed on as
 * a cast.
 */
let dynamo: Awaited<ReturnType<typeof startInProcessDynalite>>;
const clock: Clock = { now: () => new Date("2026-03-01T09:00:00.000Z") };

beforeAll(async () => {
  dynamo = await startInProcessDynalite("platen-store-decoding-");
  for (const input of createTableInputs()) await dynamo.createTable(input);
});

afterAll(() => dynamo.stop());

const putRaw = (TableName: string, Item: Record<string, unknown>) =>
  awsClients().ddb.send(new PutCommand({ TableName, Item }));

/** Expects `read` to fail with a StoredItemError naming `table`, `pk` and the attribute at fault. */
async function expectRefused(read: Promise<unknown>, table: string, pk: string, attribute: string) {
  const err = await read.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoredItemError);
  const refused = err as StoredItemError;
  expect(refused.table).toBe(table);
  expect(refused.key.pk).toBe(pk);
  expect(refused.message).toContain(`table ${table}`);
  expect(refused.message).toContain(`pk=${pk}`);
  expect(refused.message).toContain(attribute);
}

describe("the invitation store", () => {
  const file = { requestId: "req_inv", fileId: "f1", workspaceId: "ws_inv", expiresAt: 1_900_000_000 } as FileRecord;

  it("decodes the invitations it wrote, without keys or expiry", async () => {
    await dynamoInvitationStore.add(file, " Ann@Example.com ", "usr_1", clock.now());
    expect(await dynamoInvitationStore.list(file)).toEqual([
      {
        requestId: "req_inv",
        fileId: "f1",
        workspaceId: "ws_inv",
        email: "ann@example.com",
        invitedBy: "usr_1",
        invitedAt: "2026-03-01T09:00:00.000Z",
      },
    ]);
  });

  it("refuses a malformed invitation item with the table and key", async () => {
    const table = config().tables.files;
    await putRaw(table, { pk: "REQ#req_inv", sk: "INVITE#f1#bob@example.com", requestId: "req_inv", fileId: "f1" });
    await expectRefused(dynamoInvitationStore.list(file), table, "REQ#req_inv", "email");
  });
});

describe("the audit log", () => {
  it("decodes the entries it wrote, without keys or expiry", async () => {
    const entry = await dynamoAuditLog.record(
      {
        workspaceId: "ws_audit",
        actor: { via: "session", userId: "usr_1" },
        action: "file-invitation.add",
        target: "req_1/f1",
        detail: { email: "ann@example.com" },
      },
      clock,
    );
    expect(await dynamoAuditLog.list("ws_audit", clock)).toEqual([entry]);
  });

  it("refuses an entry whose action is not one of the log's actions", async () => {
    const table = config().tables.workspaces;
    await putRaw(table, {
      pk: "AUDIT#ws_audit_bad",
      sk: "2026-03-01T08:00:00.000Z#a1",
      id: "a1",
      workspaceId: "ws_audit_bad",
      at: "2026-03-01T08:00:00.000Z",
      actor: { via: "session" },
      action: "design.vanish",
    });
    await expectRefused(dynamoAuditLog.list("ws_audit_bad", clock), table, "AUDIT#ws_audit_bad", "action");
  });
});

describe("the endpoint store", () => {
  const endpoint = {
    endpointId: "ep_1",
    workspaceId: "ws_hooks",
    url: "https://hooks.example.com/platen",
    enabled: true,
    designFilterType: "selected" as const,
    targetDesignIds: ["dsg_1"],
    secret: "whsec_x",
    createdAt: "2026-03-01T09:00:00.000Z",
    updatedAt: "2026-03-01T09:00:00.000Z",
  };

  it("decodes the endpoints it wrote, with slot and revision", async () => {
    expect(await dynamoEndpointStore.insert(endpoint)).toBe(true);
    expect(await dynamoEndpointStore.get("ws_hooks", "ep_1")).toEqual({ ...endpoint, slot: 0, revision: 0 });
  });

  it("refuses an endpoint item whose revision is not a number", async () => {
    const table = config().tables.webhooks;
    await putRaw(table, { pk: "WS#ws_hooks_bad", sk: "ENDPOINT#00", ...endpoint, slot: 0, revision: "0" });
    await expectRefused(dynamoEndpointStore.list("ws_hooks_bad"), table, "WS#ws_hooks_bad", "revision");
  });
});

describe("the delivery store", () => {
  const record: DeliveryRecord = {
    deliveryId: "dlv_1",
    endpointId: "ep_dlv",
    event: "file.completed",
    timestamp: "2026-03-01T09:00:00.000Z",
    workspaceId: "ws_dlv",
    requestId: "req_dlv",
    designId: "dsg_1",
    version: 1,
    fileIds: ["f1"],
    status: "pending",
    attemptsDone: 0,
    scheduledAttempt: 1,
    attempts: [],
    createdAt: "2026-03-01T09:00:00.000Z",
    updatedAt: "2026-03-01T09:00:00.000Z",
    expiresAt: 1_900_000_000,
  };

  it("decodes the deliveries it wrote, by key, by id and in the log", async () => {
    expect(await dynamoDeliveryStore.create(record)).toBe(true);
    expect(await dynamoDeliveryStore.get(record)).toEqual(record);
    expect(await dynamoDeliveryStore.find("dlv_1")).toEqual(record);
    const claimed = await dynamoDeliveryStore.claimAttempt(record, 1, 30_000, clock.now());
    expect(claimed).toEqual({ ...record, claimedAttempt: 1, claimUntil: clock.now().getTime() + 30_000 });
    expect(await dynamoDeliveryStore.list("ep_dlv", clock.now())).toEqual([claimed]);
  });

  it("refuses a delivery whose attempt log entry has an unknown outcome", async () => {
    const table = config().tables.webhooks;
    const bad = { ...record, deliveryId: "dlv_bad", endpointId: "ep_dlv_bad" };
    await putRaw(table, {
      pk: "EP#ep_dlv_bad",
      sk: "DLV#2026-03-01T09:00:00.000Z#dlv_bad",
      ...bad,
      attempts: [{ attempt: 1, url: "https://x.example", startedAt: bad.createdAt, latencyMs: 3, outcome: "lost" }],
    });
    await expectRefused(dynamoDeliveryStore.get(bad), table, "EP#ep_dlv_bad", "attempts.0.outcome");
  });
});

describe("the event outbox relay", () => {
  it("leaves an outbox item that does not decode for the next run and relays none of it", async () => {
    const table = config().tables.requests;
    await putRaw(table, {
      pk: "REQ#req_outbox_bad",
      sk: "EVENT#file.completed",
      event: "file.completed",
      workspaceId: "ws_outbox",
      requestId: "req_outbox_bad",
      designId: "dsg_1",
      version: "one",
      fileIds: ["f1"],
      timestamp: "2026-03-01T08:00:00.000Z",
      activeShard: OUTBOX_SHARD,
      createdAt: "2026-03-01T08:00:00.000Z",
    });
    const asked: string[] = [];
    const relayed = await relayOutbox("2026-03-01T09:00:00.000Z", async (requestId) => {
      asked.push(requestId);
      return true;
    });
    expect(relayed).toBe(0);
    expect(asked).toEqual([]);
  });
});

describe("the OAuth client store", () => {
  it("decodes the clients it registered, with the secret only as a hash", async () => {
    const { client, clientSecret } = await dynamoOAuthClients.create(
      {
        workspaceId: "ws_clients",
        name: "Billing",
        isPublic: false,
        redirectUris: [],
        allowedScopes: ["pdf:generate"],
      },
      clock,
    );
    expect(clientSecret).toMatch(/^pcs_/);
    expect(await dynamoOAuthClients.get(client.clientId)).toEqual({ ...client, secretHash: expect.any(String) });
    expect(await dynamoOAuthClients.list("ws_clients")).toEqual([client]);
  });

  it("refuses a client item with a scope the service does not have", async () => {
    const table = config().tables.identity;
    await putRaw(table, {
      pk: "CLIENT#clientBad1",
      sk: "CLIENT",
      clientId: "clientBad1",
      workspaceId: "ws_clients",
      name: "Old",
      isPublic: true,
      redirectUris: [],
      allowedScopes: ["pdf:everything"],
      createdAt: "2026-03-01T09:00:00.000Z",
    });
    await expectRefused(dynamoOAuthClients.get("clientBad1"), table, "CLIENT#clientBad1", "allowedScopes.0");
  });
});

describe("the gallery", () => {
  const entry = {
    id: "0000000tmplgood1",
    workspaceId: "ws_gallery",
    designId: "dsg_1",
    version: 2,
    label: "Invoice",
    tags: ["billing"],
    pageSize: "A4",
    publisher: "Acme",
    updatedAt: "2026-03-01T09:00:00.000Z",
    bundleKey: "ws_gallery/dsg_1/2.zip",
    parameters: [
      {
        name: "items",
        type: "array" as const,
        label: "Items",
        spec: [{ name: "n", type: "text" as const, label: "N" }],
      },
    ],
  };

  it("decodes an entry, nested parameter lists included", async () => {
    await putRaw(config().tables.designs, { ...templateKey(entry.id), ...entry });
    expect(await dynamoGallery.get(entry.id)).toEqual(entry);
    expect((await dynamoGallery.search({})).templates).toEqual([entry]);
  });

  it("refuses an entry whose nested parameter has an unknown type", async () => {
    const table = config().tables.designs;
    const bad = { ...entry, id: "0000000tmplbad01" };
    bad.parameters = [{ ...entry.parameters[0]!, spec: [{ name: "n", type: "colour" as "text", label: "N" }] }];
    await putRaw(table, { ...templateKey(bad.id), ...bad });
    await expectRefused(dynamoGallery.get(bad.id), table, GALLERY_PK, "parameters.0.spec.0.type");
  });
});

describe("the file store", () => {
  const record: FileRecord = {
    requestId: "reqFiles00000001",
    fileId: "fileOne000000001",
    workspaceId: "ws_files",
    designId: "dsg_1",
    version: 1,
    fileName: "invoice.pdf",
    index: 0,
    status: "queued",
    source: "async",
    mode: "single",
    shareType: "workspace",
    passthrough: { order: "A-1", amount: 1e200 },
    metadata: { title: "Invoice", keywords: ["a"] },
    createdAt: "2026-03-01T09:00:00.000Z",
    expiresAt: 1_900_000_000,
  };

  it("decodes the records it wrote, passthrough read back from its JSON text", async () => {
    await putFileRecords([record]);
    expect(await getFileRecord("reqFiles00000001", "fileOne000000001")).toEqual(record);
  });

  it("refuses a record whose passthrough text is not JSON", async () => {
    const table = config().tables.files;
    const { passthrough: _p, ...rest } = record;
    await putRaw(table, {
      pk: "REQ#reqFiles00000001",
      sk: "FILE#fileTwo000000002",
      ...rest,
      fileId: "fileTwo000000002",
      passthroughJson: "{order",
    });
    await expectRefused(
      getFileRecord("reqFiles00000001", "fileTwo000000002"),
      table,
      "REQ#reqFiles00000001",
      "passthroughJson",
    );
  });
});

describe("the design store", () => {
  const head = {
    id: "dsg_store",
    workspaceId: "ws_designs",
    label: "Invoice",
    latestVersion: 3,
    createdAt: "2026-03-01T09:00:00.000Z",
    updatedAt: "2026-03-01T09:00:00.000Z",
  };

  it("decodes heads and versions, leaving out what the records do not name", async () => {
    const table = config().tables.designs;
    await putRaw(table, { pk: "WS#ws_designs", sk: "DESIGN#dsg_store", ...head, archivedAt: "x", archived: false });
    expect(await dynamoDesignStore.getHead("ws_designs", "dsg_store")).toEqual(head);
    const version = {
      designId: "dsg_store",
      workspaceId: "ws_designs",
      version: 3,
      manifest: { label: "Invoice", parameters: [] },
      bundleKey: "designs/ws_designs/dsg_store/b/x.json",
      createdAt: "2026-03-01T09:00:00.000Z",
    };
    await putRaw(table, { pk: "DESIGN#ws_designs#dsg_store", sk: "V#0000000003", ...version });
    expect(await dynamoDesignStore.getVersion("ws_designs", "dsg_store", 3)).toEqual(version);
  });

  it("refuses a head without its latest version and a version without a manifest", async () => {
    const table = config().tables.designs;
    const { latestVersion: _v, ...noVersion } = head;
    await putRaw(table, { pk: "WS#ws_designs_bad", sk: "DESIGN#dsg_store", ...noVersion });
    await expectRefused(dynamoDesignStore.listHeads("ws_designs_bad"), table, "WS#ws_designs_bad", "latestVersion");
    await putRaw(table, {
      pk: "DESIGN#ws_designs_bad#dsg_store",
      sk: "V#0000000001",
      designId: "dsg_store",
      workspaceId: "ws_designs_bad",
      version: 1,
      manifest: "Invoice",
      bundleKey: "k",
      createdAt: "2026-03-01T09:00:00.000Z",
    });
    await expectRefused(
      dynamoDesignStore.getVersion("ws_designs_bad", "dsg_store", 1),
      table,
      "DESIGN#ws_designs_bad#dsg_store",
      "manifest",
    );
  });
});

describe("the user store", () => {
  it("decodes the users it created, without the password hash", async () => {
    const user = await dynamoUsers.create({ email: "Dee@Example.com", password: "correct horse", name: "Dee" }, clock);
    expect(await dynamoUsers.get(user.id)).toEqual({
      id: user.id,
      email: "dee@example.com",
      name: "Dee",
      createdAt: "2026-03-01T09:00:00.000Z",
    });
    expect(await dynamoUsers.checkPassword("dee@example.com", "correct horse")).toEqual(user);
  });

  it("refuses a user row whose sign-out stamp is not a number", async () => {
    const table = config().tables.identity;
    await putRaw(table, {
      pk: "USER#usrBad",
      sk: "USER",
      id: "usrBad",
      email: "bad@example.com",
      name: "Bad",
      createdAt: "2026-03-01T09:00:00.000Z",
      sessionsValidAfter: "yesterday",
    });
    await expectRefused(dynamoUsers.get("usrBad"), table, "USER#usrBad", "sessionsValidAfter");
  });
});

describe("the job store", () => {
  const job: JobRecord = {
    requestId: "reqJobs000000001",
    workspaceId: "ws_jobs",
    designId: "dsg_1",
    version: 1,
    designLabel: "Invoice",
    mode: "multiple",
    status: "processing",
    total: 3,
    settled: 0,
    createdAt: "2026-03-01T09:00:00.000Z",
    activeShard: "active",
  };

  it("decodes the jobs it wrote, settled counted from the set of settled files", async () => {
    await putJob(job);
    await markSettled(job.requestId, ["f1", "f2"]);
    expect(await getJob(job.requestId)).toEqual({ ...job, settled: 2 });
    expect(await listActiveJobs("2026-03-01T10:00:00.000Z")).toEqual([{ ...job, settled: 2 }]);
  });

  it("refuses a job item whose status is not one of a job's", async () => {
    const table = config().tables.requests;
    await putRaw(table, {
      pk: "REQ#reqJobsBad000001",
      sk: "JOB",
      ...job,
      requestId: "reqJobsBad000001",
      status: "paused",
    });
    await expectRefused(getJob("reqJobsBad000001"), table, "REQ#reqJobsBad000001", "status");
  });
});

describe("the workspace store", () => {
  it("decodes the row and the key item's copy", async () => {
    const { workspace, appKey } = await dynamoWorkspaces.create({ name: "Acme", plan: "standard" }, clock);
    expect(await dynamoWorkspaces.get(workspace.id)).toEqual(workspace);
    expect(await dynamoWorkspaces.findByAppKey(appKey)).toEqual(workspace);
    await dynamoWorkspaces.updatePlan(workspace.id, "premium");
    expect(await dynamoWorkspaces.findByAppKey(appKey)).toEqual({ ...workspace, plan: "premium" });
  });

  it("reads a plan only the configuration names, and refuses a plan that is not a name", async () => {
    const table = config().tables.workspaces;
    const row = {
      id: "wsGoldPlan000001",
      name: "Gold",
      plan: "gold",
      appKeyRotatedAt: "2026-03-01T09:00:00.000Z",
      createdAt: "2026-03-01T09:00:00.000Z",
    };
    await putRaw(table, { pk: "WS#wsGoldPlan000001", sk: "WS", ...row });
    expect(await dynamoWorkspaces.get("wsGoldPlan000001")).toEqual(row);
    await putRaw(table, { pk: "WS#wsBadPlan0000001", sk: "WS", ...row, id: "wsBadPlan0000001", plan: 3 });
    await expectRefused(dynamoWorkspaces.get("wsBadPlan0000001"), table, "WS#wsBadPlan0000001", "plan");
  });
});
