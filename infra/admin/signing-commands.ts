import { readFileSync } from "node:fs";
import { detailMessage } from "#shared/errors/error-body.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import {
  addSigningIdentity,
  createIdentityRequest,
  defaultSigningDeps,
  listSigningIdentities,
  removeSigningIdentity,
} from "#shared/signing/identities.ts";
import type { IdentityView } from "#shared/signing/identity-store.ts";
import { type AdminCommand, type Args, need, UsageError } from "./program.ts";
import { workspaceOf } from "./workspace-arg.ts";

const operator = { via: "admin-cli" as const };

/** A refusal of the domain as one line naming the field (the API answers the same as 400 details). */
async function domain<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (!isPlatenError(err)) throw err;
    const detail = err.details.map((d) => `${d.field ? `${d.field}: ` : ""}${detailMessage(d, "en")}`).join("; ");
    throw new UsageError(`${err.code}${detail ? `: ${detail}` : ""}`);
  }
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new UsageError(`${what} ${path} could not be read: ${(error as Error).message}`);
  }
}

/**
 * The PKCS#12 password: from `--password-file` (its first line) or `PLATEN_P12_PASSWORD`, never a flag's
 * value, which would stay in the shell's history and the process list.
 */
function password(args: Args): string {
  const file = args.values.passwordFile;
  if (typeof file === "string") return readText(file, "--password-file").split(/\r?\n/)[0] ?? "";
  const fromEnv = process.env.PLATEN_P12_PASSWORD;
  if (fromEnv !== undefined) return fromEnv;
  throw new UsageError("give the PKCS#12 password with --password-file FILE or PLATEN_P12_PASSWORD");
}

function identityBody(args: Args) {
  const label = need(args, "label");
  const { pkcs12, key, chain } = args.values;
  if (typeof pkcs12 === "string") {
    if (key !== undefined || chain !== undefined)
      throw new UsageError("give --pkcs12, or --key with --chain, not both");
    let bytes: Buffer;
    try {
      bytes = readFileSync(pkcs12);
    } catch (error) {
      throw new UsageError(`--pkcs12 ${pkcs12} could not be read: ${(error as Error).message}`);
    }
    return { label, pkcs12: bytes.toString("base64"), password: password(args) };
  }
  if (typeof key !== "string" || typeof chain !== "string")
    throw new UsageError("give --pkcs12 FILE (with --password-file), or --key FILE with --chain FILE");
  return { label, privateKeyPem: readText(key, "--key"), certificateChainPem: readText(chain, "--chain") };
}

const describe = (i: IdentityView) => `${i.id}  ${i.label}  ${i.keyAlgorithm}  ${i.subject}  until ${i.notAfter}`;

/** `signing-identity …` commands of the admin CLI (the signing-identity operations). */
export const signingCommands: AdminCommand[] = [
  {
    name: "signing-identity add",
    usage: "--workspace ID --label LABEL (--pkcs12 FILE --password-file FILE | --key FILE --chain FILE)",
    options: [
      "--workspace <id>",
      "--label <label>",
      "--pkcs12 <file>",
      "--password-file <file>",
      "--key <file>",
      "--chain <file>",
    ],
    run: async (args) => {
      const workspaceId = await workspaceOf(args);
      const parsed = createIdentityRequest.safeParse(identityBody(args));
      if (!parsed.success)
        throw new UsageError(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
      const view = await domain(() => addSigningIdentity(workspaceId, parsed.data, operator, defaultSigningDeps()));
      return { json: view, text: `added signing identity ${describe(view)}` };
    },
  },
  {
    name: "signing-identity list",
    usage: "--workspace ID",
    options: ["--workspace <id>"],
    run: async (args) => {
      const items = await listSigningIdentities(await workspaceOf(args), defaultSigningDeps());
      return { json: items, text: items.map(describe).join("\n") || "(no signing identities)" };
    },
  },
  {
    name: "signing-identity remove",
    usage: "--workspace ID --id ID",
    options: ["--workspace <id>", "--id <id>"],
    run: async (args) => {
      const workspaceId = await workspaceOf(args);
      const id = need(args, "id");
      await domain(() => removeSigningIdentity(workspaceId, id, operator, defaultSigningDeps()));
      return { json: { id, removed: true }, text: `removed signing identity ${id}` };
    },
  },
];
