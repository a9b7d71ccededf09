import { systemClock } from "#shared/clock.ts";
import { reconcileUsage, storedReconcilePorts, type UsageReconciliation } from "#shared/generation/settle/index.ts";
import { monthOf, usageReport } from "#shared/limits/page-quota.ts";
import { dynamoPageCounter } from "#shared/limits/usage-table.ts";
import { type AdminCommand, type Args, need, UsageError } from "./program.ts";
import { requireWorkspace } from "./workspace-arg.ts";

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

/**
 * The page `usage` of a workspace and its reconciliation: a module of their own, so that a `usage` call
 * (scripts and tests make many) loads no publishing code or thumbnail renderer.
 */
export const usageCommands: AdminCommand[] = [
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
