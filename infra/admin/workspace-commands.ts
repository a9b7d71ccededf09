import { type AuditEntry, listAudit, recordAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { rotateAppKey } from "#shared/workspaces/app-key-rotation.ts";
import { appKeyAgeDays, keyRotationAdvice } from "#shared/workspaces/key-age.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { type Args, type Command, UsageError } from "./cli-args.ts";

/** Usage lines of the workspace-key and audit commands (cli.ts prints them with its own). */
export const WORKSPACE_USAGE = `  workspace show ID
  workspace rotate-key ID
  audit list --workspace ID [--limit N]`;

async function workspaceArg(args: Args, id: unknown = args.positionals[2] ?? args.values.workspace) {
  if (typeof id !== "string" || !id) throw new UsageError("workspace id missing");
  const workspace = await getWorkspace(id);
  if (!workspace) throw new UsageError(`workspace ${id} not found`);
  return workspace;
}

const describeEntry = (e: AuditEntry) =>
  `${e.at}  ${e.action}${e.target ? ` ${e.target}` : ""}  by ${e.actor.userId ? `user ${e.actor.userId}` : ""}${e.actor.userId && e.actor.clientId ? " via " : ""}${e.actor.clientId ? `client ${e.actor.clientId}` : ""}${e.actor.via === "admin-cli" ? "admin CLI" : ` (${e.actor.via})`}`;

/** `workspace show`, `workspace rotate-key` (spec 4.11 for operators) and `audit list`. */
export const workspaceCommands: Record<string, Command> = {
  "workspace show": async (args) => {
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
  "workspace rotate-key": async (args) => {
    const ws = await workspaceArg(args);
    try {
      const out = await rotateAppKey(ws.id, systemClock);
      await recordAudit(
        { workspaceId: ws.id, actor: { via: "admin-cli" }, action: "application-key.rotate" },
        systemClock,
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
  "audit list": async (args) => {
    const ws = await workspaceArg(args, args.values.workspace);
    const limit = args.values.limit === undefined ? undefined : Number(args.values.limit);
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
      throw new UsageError("--limit must be a positive integer");
    const entries = await listAudit(ws.id, systemClock, limit);
    return { json: entries, text: entries.map(describeEntry).join("\n") || "(no audit entries)" };
  },
};
