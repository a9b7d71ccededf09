import { type AuditAction, recordAudit } from "#shared/audit/audit-log.ts";
import { config } from "#shared/aws/config.ts";
import { systemClock } from "#shared/clock.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { listWebhookDeliveries, redeliverWebhook } from "#shared/webhooks/delivery-log.ts";
import type { WebhookEndpointInput } from "#shared/webhooks/endpoint-input.ts";
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type WebhookEndpointView,
} from "#shared/webhooks/endpoints.ts";
import { MAX_PREVIOUS_SECRET_HOURS } from "#shared/webhooks/webhook-settings.ts";
import { type AdminCommand, type Args, need, UsageError } from "./program.ts";
import { workspaceOf } from "./workspace-arg.ts";

const positional = (args: Args, what: string): string => {
  const v = args.operands[0];
  if (!v) throw new UsageError(`${what} missing`);
  return v;
};

/** Every `--design` value: repeated, several after one flag, or comma-separated. */
function designIds(args: Args): string[] | undefined {
  const raw = args.values.design;
  if (!Array.isArray(raw)) return undefined;
  return raw.flatMap((v) => v.split(",")).filter(Boolean);
}

function previousSecretHours(raw: Args["values"][string]): number {
  if (raw === undefined) return 0;
  const hours = Number(raw);
  if (typeof raw !== "string" || !Number.isInteger(hours) || hours < 0 || hours > MAX_PREVIOUS_SECRET_HOURS)
    throw new UsageError(
      `--previous-secret-hours must be a whole number from 0 to ${MAX_PREVIOUS_SECRET_HOURS}, got "${raw}"`,
    );
  return hours;
}

function parseEnabled(raw: Args["values"][string]): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw === "true" || raw === "false") return raw === "true";
  throw new UsageError(`--enabled must be true or false, got "${raw}"`);
}

/** Domain errors become one readable line: the details, not the bare code. */
async function domain<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!isPlatenError(err)) throw err;
    const detail = err.details.map((d) => detailMessage(d, "en")).join("; ");
    throw new UsageError(`${err.code}${detail ? `: ${detail}` : ""}`);
  }
}

const deps = () => ({ clock: systemClock, env: config().env });
/** Operator changes go to the workspace's audit log like API ones (shared/workspaces/README.md). */
const audit = (workspaceId: string, action: AuditAction, target: string) =>
  recordAudit({ workspaceId, actor: { via: "admin-cli" }, action, target }, systemClock);
const describe = (e: WebhookEndpointView) =>
  `${e.id}  ${e.enabled ? "enabled " : "disabled"}  ${e.designFilterType === "all" ? "all designs" : e.targetDesignIds.join(",")}  ${e.url}`;

function updateInput(args: Args): WebhookEndpointInput {
  const designs = designIds(args);
  const filter = args.values.filter;
  if (filter !== undefined && filter !== "all" && filter !== "selected")
    throw new UsageError(`--filter must be all or selected`);
  return {
    ...(typeof args.values.url === "string" && { url: args.values.url }),
    ...(args.values.enabled !== undefined && { enabled: parseEnabled(args.values.enabled) }),
    ...(filter !== undefined && { designFilterType: filter }),
    ...(designs !== undefined && { targetDesignIds: designs }),
  };
}

/** `webhook …` commands of the admin CLI (the webhook-endpoint operations, plus the delivery log). */
export const webhookCommands: AdminCommand[] = [
  {
    name: "webhook create",
    usage: "--workspace ID --url URL [--design ID ...]",
    options: ["--workspace <id>", "--url <url>", "--design <id...>"],
    run: async (args) => {
      const workspaceId = await workspaceOf(args);
      const designs = designIds(args);
      const input: WebhookEndpointInput = {
        url: need(args, "url"),
        ...(designs && { designFilterType: "selected", targetDesignIds: designs }),
      };
      const { endpoint, secret } = await domain(() => createWebhookEndpoint(workspaceId, input, deps()));
      await audit(workspaceId, "webhook-endpoint.create", endpoint.id);
      const json = {
        id: endpoint.id,
        url: endpoint.url,
        enabled: endpoint.enabled,
        designFilterType: endpoint.designFilterType,
        targetDesignIds: endpoint.targetDesignIds,
        secret,
      };
      return { json, text: `webhook endpoint ${describe(endpoint)}\nsigning secret: ${secret}  (shown once)` };
    },
  },
  {
    name: "webhook list",
    usage: "--workspace ID",
    options: ["--workspace <id>"],
    run: async (args) => {
      const endpoints = await listWebhookEndpoints(await workspaceOf(args));
      return { json: endpoints, text: endpoints.map(describe).join("\n") || "(no webhook endpoints)" };
    },
  },
  {
    name: "webhook update",
    usage: "ID --workspace ID [--url URL] [--enabled true|false] [--design ID ... | --filter all]",
    operands: ["[id]"],
    options: ["--workspace <id>", "--url <url>", "--enabled <bool>", "--design <id...>", "--filter <filter>"],
    run: async (args) => {
      const id = positional(args, "endpoint id");
      const workspaceId = await workspaceOf(args);
      const endpoint = await domain(async () => updateWebhookEndpoint(workspaceId, id, updateInput(args), deps()));
      await audit(workspaceId, "webhook-endpoint.update", id);
      return { json: endpoint, text: `updated ${describe(endpoint)}` };
    },
  },
  {
    name: "webhook delete",
    usage: "ID --workspace ID",
    operands: ["[id]"],
    options: ["--workspace <id>"],
    run: async (args) => {
      const id = positional(args, "endpoint id");
      const workspaceId = await workspaceOf(args);
      await domain(async () => deleteWebhookEndpoint(workspaceId, id));
      await audit(workspaceId, "webhook-endpoint.delete", id);
      return { json: { id, deleted: true }, text: `deleted webhook endpoint ${id}` };
    },
  },
  {
    name: "webhook rotate-secret",
    usage: "ID --workspace ID [--previous-secret-hours N]",
    operands: ["[id]"],
    options: ["--workspace <id>", "--previous-secret-hours <n>"],
    run: async (args) => {
      const id = positional(args, "endpoint id");
      const workspaceId = await workspaceOf(args);
      const hours = previousSecretHours(args.values.previousSecretHours);
      const out = await domain(async () =>
        rotateWebhookSecret(workspaceId, id, deps(), hours, () =>
          audit(workspaceId, "webhook-endpoint.secret-regenerate", id),
        ),
      );
      const previous = out.previousSecretExpiresAt
        ? `the previous one also signs until ${out.previousSecretExpiresAt}`
        : "the previous one no longer signs";
      return { json: out, text: `new signing secret: ${out.secret}  (shown once; ${previous})` };
    },
  },
  {
    name: "webhook deliveries",
    usage: "--endpoint ID [--workspace ID] [--limit N]",
    options: ["--endpoint <id>", "--workspace <id>", "--limit <n>"],
    run: async (args) => {
      const limit = args.values.limit === undefined ? undefined : Number(args.values.limit);
      if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
        throw new UsageError("--limit must be a positive integer");
      const workspaceId = typeof args.values.workspace === "string" ? await workspaceOf(args) : undefined;
      const list = await listWebhookDeliveries(need(args, "endpoint"), { workspaceId, limit }, systemClock);
      const text = list.map(
        (d) =>
          `${d.deliveryId}  ${d.event}  ${d.status}  ${d.attempts.length} attempt(s)  last: ${d.attempts.at(-1)?.statusCode ?? d.attempts.at(-1)?.error ?? "-"}`,
      );
      return { json: list, text: text.join("\n") || "(no deliveries)" };
    },
  },
  {
    name: "webhook redeliver",
    usage: "DELIVERY_ID",
    operands: ["[delivery-id]"],
    run: async (args) => {
      const out = await domain(() => redeliverWebhook(positional(args, "delivery id"), systemClock));
      return { json: out, text: `queued attempt ${out.attempt} of ${out.deliveryId}` };
    },
  },
];
