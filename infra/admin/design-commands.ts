import { config } from "#shared/aws/config.ts";
import { workspaceHasSigningLabel } from "#shared/signing/identity-store.ts";
import { systemClock } from "#shared/clock.ts";
import { listDesigns } from "#shared/designs/design-pages.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { monthOf, usageReport } from "#shared/limits/page-quota.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { thumbnailRenderer } from "#shared/authoring/thumbnails.ts";
import { reconcileUsage, storedReconcilePorts, type UsageReconciliation } from "#shared/generation/settle/index.ts";
import { type AdminCommand, type Args, need, UsageError } from "./program.ts";

/** `--month YYYY-MM`, this month when left out. */
function monthArg(args: Args): string {
  const month = typeof args.values.month === "string" ? args.values.month : monthOf(systemClock.now());
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(month)) throw new UsageError(`--month must look like YYYY-MM, got "${month}"`);
  return month;
}

/** A reconciliation as the operator reads it: the month, then each request that differs or is still in flight. */
function describeReconciliation(r: UsageReconciliation): string {
  const lines = [
    `${r.month}: ${r.billed} pages billed, ${r.delivered} delivered${r.ok ? "" : " — DIFFERENT"}${r.pending.length ? ` (${r.pending.length} request(s) still in flight)` : ""}`,
    ...r.differences.map((d) => `  request ${d.requestId} (${d.source}): billed ${d.billed}, delivered ${d.delivered}`),
    ...r.pending.map((id) => `  request ${id}: in flight, not judged`),
  ];
  return lines.join("\n");
}

async function requireWorkspace(id: string) {
  const ws = await getWorkspace(id);
  if (!ws) throw new UsageError(`workspace ${id} not found`);
  return ws;
}

/** `design publish`, `design list` and the page `usage` of a workspace. */
export const designCommands: AdminCommand[] = [
  {
    name: "design publish",
    usage: "DIR --workspace ID [--design ID]",
    operands: ["[dir]"],
    options: ["--workspace <id>", "--design <id>"],
    run: async (args) => {
      const dir = args.operands[0];
      if (!dir) throw new UsageError("design folder missing");
      const workspaceId = need(args, "workspace");
      await requireWorkspace(workspaceId);
      const bundle = await loadBundleFromDir(dir);
      const designId = typeof args.values.design === "string" ? args.values.design : undefined;
      const out = await publishDesign(
        { workspaceId, bundle, designId, matchLabel: designId === undefined, createdBy: "admin-cli" },
        { clock: systemClock, renderThumbnail: thumbnailRenderer(), signingLabelExists: workspaceHasSigningLabel },
      );
      return { json: out, text: `published ${out.label} as ${out.id} v${out.version}` };
    },
  },
  {
    name: "design list",
    usage: "--workspace ID",
    options: ["--workspace <id>"],
    run: async (args) => {
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
  },
  {
    name: "usage",
    usage: "--workspace ID [--month YYYY-MM]",
    options: ["--workspace <id>", "--month <yyyy-mm>"],
    run: async (args) => {
      const workspace = await requireWorkspace(need(args, "workspace"));
      const month = monthArg(args);
      const report = await usageReport(dynamoPageCounter, workspace, month);
      const limit = report.limit === null ? "no plan" : `${report.limit}${report.stops ? " (stops)" : " included"}`;
      return {
        json: report,
        text: `${month}: ${report.pagesUsed} pages used, limit ${limit}, overage ${report.overage}`,
      };
    },
  },
  {
    name: "usage reconcile",
    usage: "--workspace ID [--month YYYY-MM]",
    options: ["--workspace <id>", "--month <yyyy-mm>"],
    run: async (args) => {
      const workspace = await requireWorkspace(need(args, "workspace"));
      const report = await reconcileUsage(workspace, monthArg(args), storedReconcilePorts);
      return { json: report, text: describeReconciliation(report), exitCode: report.ok ? 0 : 1 };
    },
  },
];
