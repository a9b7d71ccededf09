import { GetCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";

/** Key of an oidc-provider model instance in the `oauth` table (the adapter's layout). */
export const modelKey = (model: string, id: string) => ({ pk: `${model}#${id}`, sk: "M" });

/**
 * Whether a grant still stands (not revoked, not expired): the API's revocation check for
 * code-flow tokens, without loading oidc-provider into API functions. A refresh-token
 * replay or code reuse deletes the grant, and with it every access token's standing.
 */
export async function isGrantActive(grantId: string): Promise<boolean> {
  const out = await awsClients().ddb.send(
    new GetCommand({ TableName: config().tables.oauth, Key: modelKey("Grant", grantId), ConsistentRead: true }),
  );
  const expiresAt = out.Item?.expiresAt;
  return Boolean(out.Item) && !(typeof expiresAt === "number" && expiresAt <= systemClock.now().getTime() / 1000);
}
