import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  waitUntilTableExists,
} from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import { localTableName } from "#infra/local/resource-names.ts";
import { awsClients } from "#shared/aws/clients.ts";
import { tables } from "#shared/definitions/tables.ts";

/**
 * dynalite in this process on a free port, in a temporary folder, with the environment
 * `config()` reads pointed at it (every table of the definitions named as the local stack
 * names them), for unit tests of code that talks to DynamoDB through `awsClients()`.
 */
export async function startInProcessDynalite(prefix: string): Promise<{
  /** Creates a table through `awsClients()` and waits until it is ACTIVE. */
  createTable(input: CreateTableCommandInput): Promise<void>;
  stop(): Promise<void>;
}> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const server = dynalite({ path: dir, createTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  Object.assign(process.env, Object.fromEntries(Object.values(tables).map((t) => [t.envVar, localTableName(t.id)])), {
    BUCKET_DESIGNS: "designs",
    BUCKET_FILES: "files",
    BUCKET_RECORDS: "records",
    PLATEN_BASE_URL: "http://127.0.0.1/v1",
    DYNAMODB_ENDPOINT: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    AWS_ACCESS_KEY_ID: "local",
    AWS_SECRET_ACCESS_KEY: "local",
  });
  return {
    async createTable(input) {
      const client = awsClients().ddb as unknown as DynamoDBClient;
      await client.send(new CreateTableCommand(input));
      // dynalite answers CreateTable while the table is still CREATING; under load the first
      // item call could land before it turns ACTIVE ("table not found").
      await waitUntilTableExists(
        { client, maxWaitTime: 30, minDelay: 0.05, maxDelay: 0.2 },
        { TableName: input.TableName },
      );
    },
    async stop() {
      awsClients().ddb.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
