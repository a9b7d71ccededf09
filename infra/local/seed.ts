import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "#shared/clock.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { type PublishDeps, publishDesign } from "#shared/designs/publish-design.ts";
import { getDesignVersion, listDesignHeads } from "#shared/designs/design-store.ts";
import { shareTemplate } from "#shared/designs/gallery.ts";
import { searchTemplates } from "#shared/designs/gallery-pages.ts";
import { createWorkspace, getWorkspace, type Plan } from "#shared/workspaces/workspace-store.ts";
import { repoRoot } from "./load-handler.ts";
import { seedIdentity } from "./seed-identity.ts";

export const samplesDir = join(repoRoot, "shared/designs/samples");

/** The shape of `$PLATEN_DATA_DIR/local.json`. */
export interface LocalJson {
  apiBaseUrl: string;
  authUrl: string;
  siteUrl: string;
  workspaces: {
    id: string;
    name: string;
    plan: string;
    appKey: string;
    designs: { id: string; label: string; latestVersion: number }[];
  }[];
  /** Seeded users: one admin per seeded workspace; the password is only kept here. */
  users: { id: string; email: string; password: string; workspaceIds: string[] }[];
  /** A public client for trying the code flow with PKCE. */
  oauthClients: { clientId: string; isPublic: boolean; redirectUris: string[] }[];
}

const seedWorkspaces: { name: string; plan: Plan }[] = [
  { name: "Demo", plan: "standard" },
  { name: "Second", plan: "free" },
];

/**
 * First start: two workspaces with keys and the sample designs published to both.
 * Later starts: keep everything and only refresh URLs and design versions in local.json
 * (keys are stored hashed, so local.json is where the seeded keys live).
 */
export async function seedOrRefresh(
  localJsonPath: string,
  urls: Pick<LocalJson, "apiBaseUrl" | "authUrl" | "siteUrl">,
  deps: PublishDeps & { log(msg: string): void },
): Promise<LocalJson> {
  const previous = existsSync(localJsonPath)
    ? (JSON.parse(readFileSync(localJsonPath, "utf8")) as LocalJson)
    : undefined;
  if (previous && (await getWorkspace(previous.workspaces[0]?.id ?? ""))) {
    const workspaces = [];
    for (const ws of previous.workspaces) workspaces.push({ ...ws, designs: await designsOf(ws.id) });
    // Data dirs from before users existed get theirs now.
    const identity = previous.users?.length
      ? { users: previous.users, oauthClients: previous.oauthClients ?? [] }
      : await seedIdentity(workspaces, deps);
    // Data dirs from before the gallery existed get its samples now.
    await seedGallery(workspaces[0]!, deps);
    return { ...urls, workspaces, ...identity };
  }
  const workspaces: LocalJson["workspaces"] = [];
  for (const def of seedWorkspaces) {
    const { workspace, appKey } = await createWorkspace(def, deps.clock);
    deps.log(`seeded workspace ${def.name} (${workspace.id}, plan ${def.plan})`);
    for (const folder of readdirSync(samplesDir).sort()) {
      const bundle = await loadBundleFromDir(join(samplesDir, folder));
      const published = await publishDesign({ workspaceId: workspace.id, bundle, createdBy: "seed" }, deps);
      deps.log(`  published ${published.label} v${published.version} (${published.id})`);
    }
    workspaces.push({
      id: workspace.id,
      name: def.name,
      plan: def.plan,
      appKey,
      designs: await designsOf(workspace.id),
    });
  }
  await seedGallery(workspaces[0]!, deps);
  return { ...urls, workspaces, ...(await seedIdentity(workspaces, deps)) };
}

/** Tags of the sample designs in the gallery, by label prefix. */
const GALLERY_TAGS: [RegExp, string[]][] = [
  [/^請求書/, ["invoice", "ja"]],
  [/^Certificate/, ["certificate", "en"]],
  [/^Shipping label/, ["shipping", "label", "barcode"]],
  [/^Invoice with Factur-X/, ["invoice", "en", "e-invoice", "factur-x"]],
  [/^電子インボイス/, ["invoice", "ja", "e-invoice", "factur-x"]],
];

/**
 * The public gallery starts with the sample designs, shared by the first workspace, so
 * `/public/templates` and "use this template" have something to show on a first run.
 */
async function seedGallery(
  workspace: LocalJson["workspaces"][number],
  deps: PublishDeps & { log(msg: string): void },
): Promise<void> {
  if ((await searchTemplates({ limit: 1 })).templates.length > 0) return;
  for (const design of workspace.designs) {
    const version = await getDesignVersion(workspace.id, design.id, design.latestVersion);
    if (!version) continue;
    const tags = GALLERY_TAGS.find(([pattern]) => pattern.test(design.label))?.[1] ?? [];
    const template = await shareTemplate(
      { workspaceId: workspace.id, publisher: workspace.name, label: design.label, version, tags },
      deps.clock,
    );
    deps.log(`  shared ${design.label} in the gallery (${template.id})`);
  }
}

async function designsOf(workspaceId: string): Promise<LocalJson["workspaces"][number]["designs"]> {
  const heads = await listDesignHeads(workspaceId);
  return heads
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.label.localeCompare(b.label))
    .map((h) => ({ id: h.id, label: h.label, latestVersion: h.latestVersion }));
}

/** Exposed for the clock type check of callers. */
export type { Clock };
