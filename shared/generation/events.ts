import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";

/**
 * A generation event (spec 6) recorded for the webhook dispatcher: which request, which
 * files, and whether it was addressed to one `webhookUrl`. Payloads are built from the
 * file records at delivery time, so no params (and no passcode) are stored here.
 */
export interface GenerationEvent {
  event: "file.completed" | "file.failed";
  workspaceId: string;
  requestId: string;
  designId: string;
  version: number;
  fileIds: string[];
  webhookUrl?: string;
  errorCode?: string;
  timestamp: string;
}

/** Idempotent per (request, event): a replayed finalization writes the same item again. */
export async function recordEvent(e: GenerationEvent, expiresAt: number): Promise<void> {
  await awsClients().ddb.send(
    new PutCommand({
      TableName: config().tables.requests,
      Item: { pk: `REQ#${e.requestId}`, sk: `EVENT#${e.event}`, ...e, expiresAt },
    }),
  );
}
