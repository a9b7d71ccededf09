import { systemClock } from "#shared/clock.ts";
import { IdentityError } from "#shared/identity/identity-error.ts";
import { listMembers, putMembership, removeMembership, ROLES, type Role } from "#shared/identity/memberships.ts";
import {
  createOAuthClient,
  deleteOAuthClient,
  listOAuthClients,
  type OAuthClient,
} from "#shared/identity/oauth-clients.ts";
import { parseScopes } from "#shared/identity/scopes.ts";
import { createUser, getUser } from "#shared/identity/users.ts";
import { type AdminCommand, type Args, need, UsageError } from "./program.ts";
import { workspaceOf } from "./workspace-arg.ts";

/** Domain refusals (duplicate e-mail, bad redirect URI) become one line on stderr. */
async function domain<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof IdentityError || (err as Error).message?.startsWith("unknown scope"))
      throw new UsageError((err as Error).message);
    throw err;
  }
}

async function userOf(args: Args): Promise<string> {
  const id = need(args, "user");
  if (!(await getUser(id))) throw new UsageError(`user ${id} not found`);
  return id;
}

/** Every `--redirect-uri` value (repeatable). */
function redirectUris(args: Args): string[] {
  const raw = args.values.redirectUri;
  return Array.isArray(raw) ? raw.filter((v) => v.length > 0) : [];
}

function clientType(args: Args): boolean {
  if (Boolean(args.values.public) === Boolean(args.values.confidential))
    throw new UsageError("give exactly one of --public or --confidential");
  return Boolean(args.values.public);
}

const describeClient = (c: OAuthClient) =>
  `${c.clientId}  ${c.isPublic ? "public      " : "confidential"}  ${c.name}  ${c.redirectUris.join(",") || "-"}  [${c.allowedScopes.join(" ")}]`;
const clientJson = (c: OAuthClient, clientSecret?: string) => ({
  clientId: c.clientId,
  ...(clientSecret && { clientSecret }),
  name: c.name,
  redirectUris: c.redirectUris,
  allowedScopes: c.allowedScopes,
  isPublic: c.isPublic,
});

/** `user …`, `member …` and `oauth-client …` commands of the admin CLI. */
export const identityCommands: AdminCommand[] = [
  {
    name: "user create",
    usage: "--email E --password P [--name N]",
    options: ["--email <email>", "--password <password>", "--name <name>"],
    run: async (args) => {
      const input = {
        email: need(args, "email"),
        password: need(args, "password"),
        name: args.values.name as string | undefined,
      };
      const user = await domain(() => createUser(input, systemClock));
      return {
        json: { id: user.id, email: user.email, name: user.name },
        text: `user ${user.id} (${user.email}, ${user.name})`,
      };
    },
  },
  {
    name: "member add",
    usage: "--workspace ID --user ID --role admin|read",
    options: ["--workspace <id>", "--user <id>", "--role <role>"],
    run: async (args) => {
      const role = need(args, "role") as Role;
      if (!ROLES.includes(role)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
      const membership = { workspaceId: await workspaceOf(args), userId: await userOf(args), role };
      await putMembership(membership);
      return { json: membership, text: `user ${membership.userId} is ${role} of workspace ${membership.workspaceId}` };
    },
  },
  {
    name: "member remove",
    usage: "--workspace ID --user ID",
    options: ["--workspace <id>", "--user <id>"],
    run: async (args) => {
      const workspaceId = await workspaceOf(args);
      const userId = need(args, "user");
      if (!(await removeMembership(workspaceId, userId)))
        throw new UsageError(`user ${userId} is not a member of workspace ${workspaceId}`);
      return {
        json: { workspaceId, userId, removed: true },
        text: `removed user ${userId} from workspace ${workspaceId}`,
      };
    },
  },
  {
    name: "member list",
    usage: "--workspace ID",
    options: ["--workspace <id>"],
    run: async (args) => {
      const members = await listMembers(await workspaceOf(args));
      const rows = await Promise.all(members.map(async (m) => ({ ...m, email: (await getUser(m.userId))?.email })));
      return {
        json: rows,
        text:
          rows.map((m) => `${m.userId}  ${m.role.padEnd(5)}  ${m.email ?? "(deleted user)"}`).join("\n") ||
          "(no members)",
      };
    },
  },
  {
    name: "oauth-client create",
    usage: '--workspace ID --name N (--public | --confidential) [--redirect-uri URI ...] [--scope "a b"]',
    options: [
      "--workspace <id>",
      "--name <name>",
      "--public",
      "--confidential",
      "--redirect-uri <uri...>",
      "--scope <scopes>",
    ],
    run: async (args) => {
      const isPublic = clientType(args);
      const workspaceId = await workspaceOf(args);
      const scopes =
        typeof args.values.scope === "string"
          ? await domain(async () => parseScopes(args.values.scope as string))
          : undefined;
      const input = {
        workspaceId,
        name: need(args, "name"),
        isPublic,
        redirectUris: redirectUris(args),
        allowedScopes: scopes,
      };
      const { client, clientSecret } = await domain(() => createOAuthClient(input, systemClock));
      const secretLine = clientSecret ? `\nclientSecret: ${clientSecret}  (shown once)` : "";
      return { json: clientJson(client, clientSecret), text: `oauth client ${describeClient(client)}${secretLine}` };
    },
  },
  {
    name: "oauth-client list",
    usage: "--workspace ID",
    options: ["--workspace <id>"],
    run: async (args) => {
      const clients = await listOAuthClients(await workspaceOf(args));
      return {
        json: clients.map((c) => clientJson(c)),
        text: clients.map(describeClient).join("\n") || "(no oauth clients)",
      };
    },
  },
  {
    name: "oauth-client delete",
    usage: "ID",
    operands: ["[id]"],
    run: async (args) => {
      const id = args.operands[0];
      if (!id) throw new UsageError("client id missing");
      if (!(await deleteOAuthClient(id))) throw new UsageError(`oauth client ${id} not found`);
      return { json: { clientId: id, deleted: true }, text: `deleted oauth client ${id}` };
    },
  },
];
