import { managementHandler } from "#shared/http/management-handler.ts";
import { dynamoRecordStore, lengthenRecordRetention, recordRetentionBody } from "#shared/records/index.ts";

const store = dynamoRecordStore();

/**
 * PUT /v1/workspace/{workspaceId}/record-retention (OpenAPI setRecordRetention, ADMIN): `{years: 7 | 10}`, only
 * ever lengthened (409 RECORD_RETENTION_SHORTENED); a change is audited.
 */
export const handler = managementHandler(
  "set-record-retention",
  async function handleSetRecordRetention(_req, { grant, body, audit }) {
    const { years } = body(recordRetentionBody);
    const out = await lengthenRecordRetention(store, grant.workspaceId, years);
    if (out.changed) await audit("record-retention.lengthen", String(years));
    return { status: 200, headers: { "Cache-Control": "no-store" }, json: { years: out.years } };
  },
);
