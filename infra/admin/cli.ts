import { parseArgs } from "node:util";
import { systemClock } from "#shared/clock.ts";
import { listDesigns } from "#shared/designs/design-pages.ts";
import { loadBundleFromDir } from "#shared/designs/load-bundle.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { config } from "#shared/aws/config.ts";
import { monthOf, usageReport } from "#shared/limits/page-quota.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import {
  createWorkspace,
  getWorkspace,
  type Plan,
  plans,
  updateWorkspacePlan,
} from "#shared/workspaces/workspace-store.ts";
import { connectAdmin } from "./connection.ts";
import {
  type Args,
  type Command,
  type CommandGroup,
  allOptions,
  need,
  resolveRequest,
  UsageError,
} from "./cli-args.ts";
import { IDENTITY_USAGE, identityCommands, identityOptions } from "./identity-commands.ts";
import { WEBHOOK_USAGE, webhookCommands, webhookOptions } from "./webhook-commands.ts";
import { WORKSPACE_USAGE, workspaceCommands } from "./workspace-commands.ts";
import { thumbnailRenderer } from "../local/thumbnails.ts";

/** Usage of this file's commands, one line each, starting with the command's name. */
const CORE_USAGE = `  workspace create --name NAME [--plan free|personal|standard|premium]
  workspace update ID --plan PLAN
  design publish DIR --workspace ID [--design ID]
  design list --workspace ID
  usage --workspace ID [--month YYYY-MM]`;

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

const coreCommands: Record<string, Command> = {
  "workspace create": async (args) => {
    const { workspace, appKey } = await createWorkspace(
      { name: need(args, "name"), plan: parsePlan(args.values.plan as string) },
      systemClock,
    );
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
    if (!dir) throw new UsageError("design folder missing");
    const workspaceId = need(args, "workspace");
    await requireWorkspace(workspaceId);
    const bundle = await loadBundleFromDir(dir);
    const designId = typeof args.values.design === "string" ? args.values.design : undefined;
    const out = await publishDesign(
      { workspaceId, bundle, designId },
      { clock: systemClock, renderThumbnail: thumbnailRenderer() },
    );
    return { json: out, text: `published ${out.label} as ${out.id} v${out.version}` };
  },
  usage: async (args) => {
    const workspace = await requireWorkspace(need(args, "workspace"));
    const month = typeof args.values.month === "string" ? args.values.month : monthOf(systemClock.now());
    if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError(`--month must look like YYYY-MM, got "${month}"`);
    const report = await usageReport(dynamoPageCounter, workspace, month);
    const limit = report.limit === null ? "no plan" : `${report.limit}${report.stops ? " (stops)" : " included"}`;
    return {
      json: report,
      text: `${month}: ${report.pagesUsed} pages used, limit ${limit}, overage ${report.overage}`,
    };
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
    return {
      json: designs,
      text: designs.map((d) => `${d.id}  v${d.latestVersion}  ${d.label}`).join("\n") || "(no designs)",
    };
  },
};

/** Every command of the CLI, by file; another file's commands slot in with one entry here. */
const groups: CommandGroup[] = [
  {
    commands: coreCommands,
    usage: CORE_USAGE,
    options: {
      name: { type: "string" },
      plan: { type: "string" },
      workspace: { type: "string" },
      design: { type: "string" },
      id: { type: "string" },
      month: { type: "string" },
    },
  },
  { commands: webhookCommands, usage: WEBHOOK_USAGE, options: webhookOptions },
  { commands: identityCommands, usage: IDENTITY_USAGE, options: identityOptions },
  {
    commands: workspaceCommands,
    usage: WORKSPACE_USAGE,
    options: { workspace: { type: "string" }, limit: { type: "string" } },
  },
];

async function main(argv: string[]): Promise<number> {
  const request = resolveRequest(groups, argv);
  if (request.kind === "help") {
    console.log(request.text);
    return 0;
  }
  try {
    const args = parseArgs({ args: argv, allowPositionals: true, options: allOptions(groups) }) as Args;
    const release = await connectAdmin();
    try {
      const out = await request.command(args);
      console.log(args.values.json ? JSON.stringify(out.json) : out.text);
      return 0;
    } finally {
      await thumbnailRenderer.close();
      await release();
    }
  } catch (err) {
    throw withUsage(err as Error, request.usage);
  }
}

/** The operator's mistakes in a command's arguments come with that command's usage. */
function withUsage(err: Error, usage: string): Error {
  const isParseError = (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS_");
  if (err.name !== "UsageError" && !isParseError) return err;
  return new UsageError(err.message.replace(/\. To specify a positional argument.*$/s, ""), usage);
}

const KNOWN_ERRORS = ["UsageError", "BundleError", "PublishError", "ConfigError", "AlreadyRunningError"];

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    const known = KNOWN_ERRORS.includes(err.name);
    // One line on stderr, always (scripts and tests read it); the usage goes on that line.
    const usage = err instanceof UsageError && err.usage ? ` (${err.usage.replace(/\s*\n\s*/g, "; ")})` : "";
    console.error(`admin: ${known ? err.message : `failed: ${err.message.split("\n")[0]}`}${usage}`);
    process.exit(1);
  },
);
