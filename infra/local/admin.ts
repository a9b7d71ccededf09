import { parseArgs } from "node:util";
import { systemClock } from "#shared/clock.ts";
import { listDesigns } from "#shared/designs/list-designs.ts";
import { loadBundleFromDir } from "#shared/designs/load-bundle.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { config } from "#shared/aws/config.ts";
import { monthOf, usageReport } from "#shared/limits/page-quota.ts";
import { createWorkspace, getWorkspace, type Plan, plans, updateWorkspacePlan } from "#shared/workspaces/workspace-store.ts";
import { connectAdmin } from "./admin-connection.ts";
import { IDENTITY_USAGE, identityCommands, identityOptions } from "./admin-identity.ts";
import { WEBHOOK_USAGE, webhookCommands, webhookOptions } from "./admin-webhooks.ts";
import { WORKSPACE_USAGE, workspaceCommands } from "./admin-workspace.ts";
import { thumbnailRenderer } from "./thumbnails.ts";

/** A mistake of the operator: printed as one line, exit code 1, never a stack trace. */
class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

const USAGE = `usage: npm run admin -- <command> [--json]
  workspace create --name NAME [--plan free|personal|standard|premium]
  workspace update ID --plan PLAN
  design publish DIR --workspace ID [--design ID]
  design list --workspace ID
  usage --workspace ID [--month YYYY-MM]
${WORKSPACE_USAGE}
${WEBHOOK_USAGE}
${IDENTITY_USAGE}`;

type Args = { positionals: string[]; values: Record<string, string | boolean | undefined> };
type Command = (args: Args) => Promise<{ json: unknown; text: string }>;

const need = (args: Args, name: string): string => {
  const v = args.values[name];
  if (typeof v !== "string" || !v) throw new UsageError(`--${name} is required\n${USAGE}`);
  return v;
};

const parsePlan = (raw: string | undefined): Plan => {
  const plan = (raw ?? "free") as Plan;
  if (!plans.includes(plan)) throw new UsageError(`unknown plan "${raw}" (one of ${plans.join(", ")})`);
  return plan;
};

async function requireWorkspace(id: string) {
  const ws = await getWorkspace(id);
  if (!ws) throw new UsageError(`workspace ${id} not found`);
  return ws;
}

const commands: Record<string, Command> = {
  "workspace create": async (args) => {
    const { workspace, appKey } = await createWorkspace({ name: need(args, "name"), plan: parsePlan(args.values.plan as string) }, systemClock);
    const json = { id: workspace.id, name: workspace.name, plan: workspace.plan, appKey };
    return { json, text: `workspace ${json.id} (${json.name}, ${json.plan})\nappKey: ${appKey}  (shown once)` };
  },
  "workspace update": async (args) => {
    const id = args.positionals[2] ?? need(args, "id");
    const plan = parsePlan(need(args, "plan"));
    await requireWorkspace(id);
    await updateWorkspacePlan(id, plan);
    return { json: { id, plan }, text: `workspace ${id} now on plan ${plan}` };
  },
  "design publish": async (args) => {
    const dir = args.positionals[2];
    if (!dir) throw new UsageError(`design folder missing\n${USAGE}`);
    const workspaceId = need(args, "workspace");
    await requireWorkspace(workspaceId);
    const bundle = await loadBundleFromDir(dir);
    const designId = typeof args.values.design === "string" ? args.values.design : undefined;
    const out = await publishDesign({ workspaceId, bundle, designId }, { clock: systemClock, renderThumbnail: thumbnailRenderer() });
    return { json: out, text: `published ${out.label} as ${out.id} v${out.version}` };
  },
  usage: async (args) => {
    const workspace = await requireWorkspace(need(args, "workspace"));
    const month = typeof args.values.month === "string" ? args.values.month : monthOf(systemClock.now());
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError(`--month must look like YYYY-MM, got "${month}"`);
    const report = await usageReport(workspace, month);
    const limit = report.limit === null ? "no plan" : `${report.limit}${report.stops ? " (stops)" : " included"}`;
    return { json: report, text: `${month}: ${report.pagesUsed} pages used, limit ${limit}, overage ${report.overage}` };
  },
  "design list": async (args) => {
    const workspaceId = need(args, "workspace");
    await requireWorkspace(workspaceId);
    const designs = [];
    for (let page = 1, total = 1; page <= total; page++) {
      const body = await listDesigns(workspaceId, page, config().baseUrl);
      designs.push(...body.designs);
      total = body.totalPages;
    }
    return { json: designs, text: designs.map((d) => `${d.id}  v${d.latestVersion}  ${d.label}`).join("\n") || "(no designs)" };
  },
  ...webhookCommands,
  ...workspaceCommands,
  ...identityCommands,
};

async function main(): Promise<number> {
  const args = parseArgs({
    allowPositionals: true,
    options: {
      json: { type: "boolean" },
      name: { type: "string" },
      plan: { type: "string" },
      workspace: { type: "string" },
      design: { type: "string" },
      id: { type: "string" },
      month: { type: "string" },
      ...webhookOptions,
      ...identityOptions,
    },
  }) as Args;
  const command = commands[args.positionals.slice(0, 2).join(" ")] ?? commands[args.positionals[0] ?? ""];
  if (!command) throw new UsageError(USAGE);
  const release = await connectAdmin();
  try {
    const out = await command(args);
    console.log(args.values.json ? JSON.stringify(out.json) : out.text);
    return 0;
  } finally {
    await thumbnailRenderer.close();
    await release();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    const known = ["UsageError", "BundleError", "PublishError", "ConfigError"].includes(err.name) || (err as { code?: string }).code === "ERR_PARSE_ARGS_UNKNOWN_OPTION";
    console.error(`admin: ${known ? err.message : `failed: ${err.message.split("\n")[0]}`}`);
    process.exit(1);
  },
);
