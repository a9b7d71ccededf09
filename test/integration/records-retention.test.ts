import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { dynamoRecordStore } from "#shared/records/index.ts";
import { makeUser, manage, sessionOf, useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";

let stack: SharedStack;
let a: Tenant;
let b: Tenant;
const sessions: Record<"admin" | "reader" | "otherAdmin", string> = { admin: "", reader: "", otherAdmin: "" };

beforeAll(async () => {
  stack = await sharedStack();
  [a, b] = await Promise.all([createTenant(stack, "retention A"), createTenant(stack, "retention B")]);
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  sessions.admin = await sessionOf((await makeUser({ [a.workspaceId]: "admin" })).id);
  sessions.reader = await sessionOf((await makeUser({ [a.workspaceId]: "read" })).id);
  sessions.otherAdmin = await sessionOf((await makeUser({ [b.workspaceId]: "admin" })).id);
}, 120_000);

afterAll(async () => {
  await stack?.release();
});

describe("the record retention setting", () => {
  const path = () => `/workspace/${a.workspaceId}/record-retention`;
  const origin = () => new URL(stack.localJson.siteUrl).origin;

  it("is 7 years by default, read by any member", async () => {
    const read = await manage(stack)("GET", path(), { cookie: sessions.reader });
    expect(read).toMatchObject({ status: 200, body: { years: 7 } });
  });

  it("is lengthened to 10 by an ADMIN only, audited, and then never shortened", async () => {
    const call = manage(stack);
    expect((await call("PUT", path(), { cookie: sessions.reader, origin: origin() }, { years: 10 })).status).toBe(403);
    expect((await call("PUT", path(), { cookie: sessions.admin, origin: origin() }, { years: 8 })).status).toBe(400);
    const longer = await call("PUT", path(), { cookie: sessions.admin, origin: origin() }, { years: 10 });
    expect(longer).toMatchObject({ status: 200, body: { years: 10 } });
    const shorter = await call("PUT", path(), { cookie: sessions.admin, origin: origin() }, { years: 7 });
    expect(shorter.status).toBe(409);
    expect(shorter.body.code).toBe("RECORD_RETENTION_SHORTENED");
    expect(await dynamoRecordStore().retentionYears(a.workspaceId)).toBe(10);
    const audit = await listAudit(a.workspaceId, systemClock);
    expect(audit.filter((e) => e.action === "record-retention.lengthen").map((e) => e.target)).toEqual(["10"]);
  });

  it("is not another workspace's to read or change", async () => {
    const call = manage(stack);
    const read = await call("GET", path(), { cookie: sessions.otherAdmin });
    expect([403, 404]).toContain(read.status);
    expect(
      (await call("PUT", path(), { cookie: sessions.otherAdmin, origin: origin() }, { years: 10 })).status,
    ).not.toBe(200);
    expect(await dynamoRecordStore().retentionYears(b.workspaceId)).toBe(7);
  });
});
