import { UpdateCommand, type UpdateCommandInput } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "./clients.ts";

/**
 * Whether a DynamoDB write was refused because its condition did not hold (someone else got
 * there first). By name, not `instanceof`: a second copy of the SDK in a bundle stays recognised.
 */
export function isConditionalCheckFailed(err: unknown): boolean {
  return (err as { name?: string } | undefined)?.name === "ConditionalCheckFailedException";
}

/** For `.catch`: swallows a refused condition, rethrows anything else. */
export function ignoreConditionalCheckFailed(err: unknown): void {
  if (!isConditionalCheckFailed(err)) throw err;
}

/**
 * A conditional UpdateItem that reports whether it applied: false when the condition did
 * not hold, any other error is thrown.
 */
export async function updateIf(input: UpdateCommandInput): Promise<boolean> {
  try {
    await awsClients().ddb.send(new UpdateCommand(input));
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/**
 * A conditional UpdateItem with `ReturnValues`: the attributes it returned (possibly none), or
 * undefined when the condition did not hold; any other error is thrown.
 */
export async function updateReturning(
  input: UpdateCommandInput,
): Promise<{ attributes: Record<string, unknown> } | undefined> {
  try {
    const out = await awsClients().ddb.send(new UpdateCommand(input));
    return { attributes: out.Attributes ?? {} };
  } catch (err) {
    if (isConditionalCheckFailed(err)) return undefined;
    throw err;
  }
}
