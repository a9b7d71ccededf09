import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { systemClock } from "#shared/clock.ts";
import {
  type DesignVersion,
  getDesignVersion,
  getObjectText,
  INLINE_BUNDLE_MAX_BYTES,
  listDesignVersions,
} from "#shared/designs/design-store.ts";
import { loadBundle } from "#shared/designs/find-design-version.ts";
import { inlineStoredBundles } from "#shared/designs/inline-bundles.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { adminCliArgs } from "../helpers/local-build.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, sampleDir, sampleParams, type Tenant } from "../helpers/sync-fixtures.ts";
import { syncCaller } from "../helpers/sync-http.ts";

/**
 * Bundles inline in their version item (shared/designs/design-store.ts `bundleJson`): what publishing writes,
 * what generation reads, the versions list that leaves them out, and the migration of versions published
 * before (`design inline-bundles`, shared/designs/inline-bundles.ts), on the local stack's DynamoDB and S3.
 */

let stack: SharedStack;
let tenant: Tenant;
const repoRoot = resolve(import.meta.dirname, "../..");

const versionItem = async (workspaceId: string, designId: string, version: number) =>
  (
    await awsClients().ddb.send(
      new GetCommand({
        TableName: config().tables.designs,
        Key: { pk: `DESIGN#${workspaceId}#${designId}`, sk: `V#${String(version).padStart(10, "0")}` },
        ConsistentRead: true,
      }),
    )
  ).Item;

/** The item as a version published before bundles went inline was stored. */
const stripInline = (workspaceId: string, designId: string, version: number) =>
  awsClients().ddb.send(
    new UpdateCommand({
      TableName: config().tables.designs,
      Key: { pk: `DESIGN#${workspaceId}#${designId}`, sk: `V#${String(version).padStart(10, "0")}` },
      UpdateExpression: "REMOVE bundleJson",
    }),
  );

/** The invoice sample with an extra asset of `bytes` random bytes (base64 in the stored JSON: 4/3 of it). */
async function invoiceWithAsset(bytes: number, label: string) {
  const bundle = await loadBundleFromDir(sampleDir("invoice-ja"));
  return {
    ...bundle,
    manifest: { ...bundle.manifest, label },
    assets: { ...bundle.assets, "filler.bin": { contentType: "application/octet-stream", body: randomBytes(bytes) } },
  };
}

function admin(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return adminCliArgs(...args).then(
    (argv) =>
      new Promise((done) => {
        execFile(
          process.execPath,
          argv,
          { cwd: repoRoot, env: { ...process.env, PLATEN_DATA_DIR: stack.dataDir } },
          (err, stdout, stderr) =>
            done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      }),
  );
}

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  tenant = await createTenant(stack, "inline bundles");
});

afterAll(async () => {
  await stack?.release();
});

describe("publishing", () => {
  it("keeps a small bundle in its version item, the same JSON as its S3 object", async () => {
    const item = await versionItem(tenant.workspaceId, tenant.invoiceId, 1);
    expect(typeof item?.bundleJson).toBe("string");
    expect(item?.bundleJson).toBe(await getObjectText(String(item?.bundleKey)));
  });

  it("keeps a bundle over the limit in S3 only, and generation reads it from there", async () => {
    const bundle = await invoiceWithAsset(INLINE_BUNDLE_MAX_BYTES, "large invoice");
    const published = await publishDesign({ workspaceId: tenant.workspaceId, bundle }, { clock: systemClock });
    const item = await versionItem(tenant.workspaceId, published.id, 1);
    expect(item).toBeDefined();
    expect(item?.bundleJson).toBeUndefined();
    const res = await syncCaller(stack, tenant.appKey)("single", {
      designId: published.id,
      version: 1,
      content: { fileName: "large", params: sampleParams("invoice-ja") },
    });
    expect(res.status).toBe(200);
    expect(
      Buffer.from(await res.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
  });
});

describe("reading", () => {
  it("takes the bundle from the item without asking S3 (a key that names no object)", async () => {
    const version = (await getDesignVersion(tenant.workspaceId, tenant.invoiceId, 1)) as DesignVersion;
    expect(version.bundleJson).toBeDefined();
    const bundle = await loadBundle({ ...version, bundleKey: `designs/none/${Date.now()}.json` });
    expect(bundle.template).toBe((await loadBundleFromDir(sampleDir("invoice-ja"))).template);
  });

  it("lists versions without their bundles, every one of a page of large items", async () => {
    // Items of ~93 KB: a page of 14 is more than the 1 MB one query reads (dynalite stops there too).
    const bundle = await invoiceWithAsset(55 * 1024, "many versions");
    let id: string | undefined;
    for (let i = 0; i < 14; i++) {
      const next = { ...bundle, template: `${bundle.template}<!-- ${i} -->` };
      const out = await publishDesign(
        { workspaceId: tenant.workspaceId, bundle: next, ...(id && { designId: id }) },
        { clock: systemClock },
      );
      id = out.id;
    }
    const item = await versionItem(tenant.workspaceId, id!, 14);
    expect(String(item?.bundleJson).length).toBeGreaterThan(88 * 1024);
    const listed = await listDesignVersions(tenant.workspaceId, id!, { limit: 30, before: 15 });
    expect(listed.map((v) => v.version)).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(listed.every((v) => v.bundleJson === undefined && v.bundleKey.length > 0)).toBe(true);
    const page = await listDesignVersions(tenant.workspaceId, id!, { limit: 5, before: 15 });
    expect(page.map((v) => v.version)).toEqual([14, 13, 12, 11, 10]);
  });
});

describe("the migration of versions published before (design inline-bundles)", () => {
  let old: { id: string; version: number };

  beforeAll(async () => {
    const bundle = await invoiceWithAsset(1024, "published before");
    const out = await publishDesign({ workspaceId: tenant.workspaceId, bundle }, { clock: systemClock });
    old = { id: out.id, version: out.version };
    await stripInline(tenant.workspaceId, old.id, old.version);
  });

  it("leaves such a version working: generation reads its bundle from S3", async () => {
    expect((await versionItem(tenant.workspaceId, old.id, old.version))?.bundleJson).toBeUndefined();
    const res = await syncCaller(stack, tenant.appKey)("single", {
      designId: old.id,
      version: old.version,
      content: { fileName: "old", params: sampleParams("invoice-ja") },
    });
    expect(res.status).toBe(200);
  });

  it("--dry-run counts it and writes nothing", async () => {
    const out = await admin("design", "inline-bundles", "--dry-run", "--json");
    const report = JSON.parse(out.stdout) as { dryRun: boolean; inlined: number };
    expect(report.dryRun).toBe(true);
    expect(report.inlined).toBeGreaterThanOrEqual(1);
    expect(out.stderr).toMatch(/^design inline-bundles: \d+ versions without an inline bundle: \d+ to inline/m);
    expect((await versionItem(tenant.workspaceId, old.id, old.version))?.bundleJson).toBeUndefined();
  });

  it("inlines it (the S3 object's JSON), leaves the large one in S3, and a second run finds it done", async () => {
    const out = await admin("design", "inline-bundles");
    expect(out.stdout).toMatch(/versions without an inline bundle: \d+ inlined, \d+ too large \(S3 only\)/);
    const item = await versionItem(tenant.workspaceId, old.id, old.version);
    expect(item?.bundleJson).toBe(await getObjectText(String(item?.bundleKey)));
    const again = await inlineStoredBundles({ dryRun: true });
    expect(again.inlined).toBe(0);
    expect(again.tooLarge).toBeGreaterThanOrEqual(1); // the large invoice above
  });

  it("names a version whose S3 object is missing, exit 2, and changes nothing else", async () => {
    const bundle = await invoiceWithAsset(512, "object gone");
    const gone = await publishDesign({ workspaceId: tenant.workspaceId, bundle }, { clock: systemClock });
    await stripInline(tenant.workspaceId, gone.id, 1);
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.designs,
        Key: { pk: `DESIGN#${tenant.workspaceId}#${gone.id}`, sk: `V#${"1".padStart(10, "0")}` },
        UpdateExpression: "SET bundleKey = :k",
        ExpressionAttributeValues: { ":k": `designs/${tenant.workspaceId}/${gone.id}/b/missing.json` },
      }),
    );
    const out = await admin("design", "inline-bundles");
    expect(out.code).toBe(2);
    expect(out.stdout).toContain(`unreadable: DESIGN#${tenant.workspaceId}#${gone.id} V#0000000001`);
    expect((await versionItem(tenant.workspaceId, gone.id, 1))?.bundleJson).toBeUndefined();
    // Put right (an object that exists) for the files after this one on the shared stack.
    await awsClients().ddb.send(
      new UpdateCommand({
        TableName: config().tables.designs,
        Key: { pk: `DESIGN#${tenant.workspaceId}#${gone.id}`, sk: `V#${"1".padStart(10, "0")}` },
        UpdateExpression: "SET bundleKey = :k",
        ExpressionAttributeValues: {
          ":k": String((await versionItem(tenant.workspaceId, tenant.invoiceId, 1))?.bundleKey),
        },
      }),
    );
  });
});
