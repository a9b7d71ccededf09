import { UpdateCommand, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "./clients.ts";

/**
 * A conditional UpdateItem that reports whether it applied: false when the condition did
 * not hold (someone else got there first), any other error is thrown.
 */
export async function updateIf(input: UpdateCommandInput): Promise<boolean> {
  try {
    await awsClients().ddb.send(new UpdateCommand(input));
    return true;
  } catch (err) {
    if ((err as { name?: string }).name === "ConditionalCheckFailedException") return false;
    throw err;
  }
}
