import { beforeAll, describe, expect, it } from "vitest";
import type { TableDefinition } from "#shared/definitions/index.ts";
import { tables } from "#shared/definitions/index.ts";
import { createTableInputs } from "../../infra/local/create-resources.ts";
import { localTableName } from "../../infra/local/resource-names.ts";
import { type PlatenDefinitions, sharedDefinitions } from "../../infra/stack/definitions.ts";
import { logicalId, SYNTH_TIMEOUT_MS, type Synthesized, synthStack, type Cfn } from "./synth.ts";

/** One index name and key list per GSI, in a form both consumers can be reduced to. */
type IndexShape = { name: string; keys: string[] };

const ADDED_INDEX = { name: "byProbe", partitionKey: "probeKey", sortKey: "probeSort" };

/** A deep copy of the definitions with one GSI added to the `files` table. */
function definitionsWithExtraIndex(): PlatenDefinitions {
  const cloned = structuredClone(sharedDefinitions.tables) as Record<string, TableDefinition>;
  cloned.files = { ...cloned.files!, indexes: [...cloned.files!.indexes, ADDED_INDEX] };
  return { ...sharedDefinitions, tables: cloned };
}

function cdkIndexes(s: Synthesized, tableId: string): IndexShape[] {
  const p = s.json.Resources[logicalId(s.stack, s.stack.data.tables[tableId]!.table)]!.Properties!;
  return (p.GlobalSecondaryIndexes ?? []).map((g: Cfn) => ({
    name: g.IndexName,
    keys: g.KeySchema.map((k: Cfn) => k.AttributeName),
  }));
}

function localIndexes(defs: Record<string, TableDefinition>, tableId: string): IndexShape[] {
  const input = createTableInputs(defs).find((i) => i.TableName === localTableName(tableId))!;
  return (input.GlobalSecondaryIndexes ?? []).map((g) => ({
    name: g.IndexName!,
    keys: g.KeySchema!.map((k) => k.AttributeName!),
  }));
}

describe("one definition, two consumers", () => {
  let modified: PlatenDefinitions;
  let s: Synthesized;

  beforeAll(() => {
    modified = definitionsWithExtraIndex();
    s = synthStack({ definitions: modified });
  }, SYNTH_TIMEOUT_MS);

  it("leaves the shared definitions untouched (the copy is deep)", () => {
    expect(tables.files.indexes.some((i) => i.name === ADDED_INDEX.name)).toBe(false);
  });

  it("puts a GSI added to the definitions into the CDK template", () => {
    expect(cdkIndexes(s, "files")).toContainEqual({ name: "byProbe", keys: ["probeKey", "probeSort"] });
    const attributes =
      s.json.Resources[logicalId(s.stack, s.stack.data.tables.files!.table)]!.Properties!.AttributeDefinitions;
    expect(attributes).toContainEqual({ AttributeName: "probeKey", AttributeType: "S" });
  });

  it("puts the same GSI into the local runner's CreateTable inputs", () => {
    const tablesDefs = modified.tables as Record<string, TableDefinition>;
    expect(localIndexes(tablesDefs, "files")).toContainEqual({ name: "byProbe", keys: ["probeKey", "probeSort"] });
  });

  it("gives every table the same indexes in both consumers", () => {
    const tablesDefs = modified.tables as Record<string, TableDefinition>;
    const local = createTableInputs(tablesDefs);
    expect(local).toHaveLength(Object.keys(tablesDefs).length);
    for (const id of Object.keys(tablesDefs)) {
      expect(localIndexes(tablesDefs, id), id).toEqual(cdkIndexes(s, id));
    }
    for (const input of local) {
      const id = Object.keys(tablesDefs).find((t) => input.TableName === localTableName(t))!;
      const cdk = s.json.Resources[logicalId(s.stack, s.stack.data.tables[id]!.table)]!.Properties!;
      expect(input.KeySchema).toEqual(cdk.KeySchema);
      expect(input.BillingMode).toBe(cdk.BillingMode);
    }
  });
});
