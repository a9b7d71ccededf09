import { managementHandler } from "#shared/http/management-handler.ts";
import { dynamoRecordStore } from "#shared/records/index.ts";

const store = dynamoRecordStore();

/** GET /v1/workspace/{workspaceId}/record-retention (OpenAPI getRecordRetention, READ): `{years}`, 7 or 10. */
export const handler = managementHandler(
  "read-record-retention",
  async function handleGetRecordRetention(_req, { grant }) {
    return {
      status: 200,
      headers: { "Cache-Control": "no-store" },
      json: { years: await store.retentionYears(grant.workspaceId) },
    };
  },
);
