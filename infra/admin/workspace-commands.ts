import { type AuditEntry, listAudit, recordAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { rotateAppKey } from "#shared/workspaces/app-key-rotation.ts";
import { appKeyAgeDays, keyRotationAdvice } from "#shared/workspaces/key-age.ts";
import { createWorkspace, type Plan, plans, updateWorkspacePlan } from "#shared/workspaces/workspace-store.ts";
import { type AdminCommand, type Args, need, UsageError } from "./program.ts";
import { requireWorkspace } from "./workspace-arg.ts";

const parsePlan = (raw: string | undefined): Plan => {
  const plan = (raw ?? "free") as Plan;
  if (!plans.includes(plan)) throw new UsageError(`unknown plan "${raw}" (one of ${plans.join(", ")})`);
  return plan;
};

async function workspaceArg(args: Args, id: unknown = args.operands[0] ?? args.values.workspace) {
  if (typeof id !== "string" || !id) throw new UsageError("workspace id missing");
  return requireWorkspace(id);
}

const describeEntry = (e: AuditEntry) =>
  `${e.at}  ${e.action}${e.target ? ` ${e.target}` : ""}  by ${e.actor.userId ? `user ${e.actor.userId}` : ""}${e.actor.userId && e.actor.clientId ? " via " : ""}${e.actor.clientId ? `client ${e.actor.clientId}` : ""}${e.actor.via === "admin-cli" ? "admin CLI" : ` (${e.actor.via})`}`;

/** Workspaces (OpenAPI rotateApplicationKey: key rotation for operators) and their audit log. */
export const workspaceCommands: AdminCommand[] = [
  {
    name: "workspace create",
    usage: "--name NAME [--plan free|personal|standard|premium]",
    options: ["--name <name>", "--plan <plan>"],
    run: async (args) => {
      const { workspace, appKey } = await createWorkspace(
        { name: need(args, "name"), plan: parsePlan(args.values.plan as string | undefined) },
        systemClock,
      );
      const json = { id: workspace.id, name: workspace.name, plan: workspace.plan, appKey };
      return { json, text: `workspace ${json.id} (${json.name}, ${json.plan})\nappKey: ${appKey}  (shown once)` };
    },
  },
  {
    name: "workspace update",
    usage: "ID --plan PLAN",
    operands: ["[id]"],
    options: ["--id <id>", "--plan <plan>"],
    run: async (args) => {
      const ws = await workspaceArg(args, args.operands[0] ?? need(args, "id"));
      const plan = parsePlan(need(args, "plan"));
      await updateWorkspacePlan(ws.id, plan);
      return { json: { id: ws.id, plan }, text: `workspace ${ws.id} now on plan ${plan}` };
    },
  },
  {
    name: "workspace show",
    usage: "ID",
    operands: ["[id]"],
    options: ["--workspace <id>"],
    run: async (args) => {
      const ws = await workspaceArg(args);
      const now = systemClock.now();
      const warning = keyRotationAdvice(ws, now);
      const json = {
        ...ws,
        lastRotatedAt: ws.appKeyRotatedAt,
        keyAgeDays: appKeyAgeDays(ws, now),
        ...(warning && { warning }),
      };
      const lines = [
        `workspace ${ws.id} (${ws.name}, ${ws.plan ?? "no plan"})`,
        `application key last rotated ${ws.appKeyRotatedAt} (${json.keyAgeDays} days ago)`,
      ];
      return { json, text: [...lines, ...(warning ? [`WARNING: ${warning}`] : [])].join("\n") };
    },
  },
  {
    name: "workspace rotate-key",
    usage: "ID",
    operands: ["[id]"],
    options: ["--workspace <id>"],
    run: async (args) => {
      const ws = await workspaceArg(args);
      try {
        const out = await rotateAppKey(ws.id, systemClock, () =>
          recordAudit(
            { workspaceId: ws.id, actor: { via: "admin-cli" }, action: "application-key.rotate" },
            systemClock,
          ),
        );
        return {
          json: { id: ws.id, ...out },
          text: `applicationKey: ${out.applicationKey}  (shown once; the previous key no longer works)`,
        };
      } catch (err) {
        if (isPlatenError(err) && err.code === "APP_KEY_ROTATION_CONFLICT")
          throw new UsageError(`${err.code}: rotated concurrently at ${err.vars.lastRotatedAt}`);
        throw err;
      }
    },
  },
  {
    name: "audit list",
    usage: "--workspace ID [--limit N]",
    options: ["--workspace <id>", "--limit <n>"],
    run: async (args) => {
      const ws = await workspaceArg(args, args.values.workspace);
      const limit = args.values.limit === undefined ? undefined : Number(args.values.limit);
      if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
        throw new UsageError("--limit must be a positive integer");
      const entries = await listAudit(ws.id, systemClock, limit);
      return { json: entries, text: entries.map(describeEntry).join("\n") || "(no audit entries)" };
    },
  },
];
