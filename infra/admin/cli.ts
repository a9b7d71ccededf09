import { thumbnailRenderer } from "#shared/authoring/thumbnails.ts";
import { connectAdmin } from "./connection.ts";
import { designCommands } from "./design-commands.ts";
import { identityCommands } from "./identity-commands.ts";
import { type AdminCommand, commandUsage, parseCommandLine, UsageError } from "./program.ts";
import { signingCommands } from "./signing-commands.ts";
import { webhookCommands } from "./webhook-commands.ts";
import { workspaceCommands } from "./workspace-commands.ts";

/** Every command of the CLI, one entry each, in the order `--help` lists them. */
const commands: AdminCommand[] = [
  ...workspaceCommands,
  ...designCommands,
  ...webhookCommands,
  ...identityCommands,
  ...signingCommands,
];

async function main(argv: string[]): Promise<number> {
  const request = await parseCommandLine(commands, argv);
  if (!request) return 0; // help was asked for and printed
  const { command, args, json } = request;
  try {
    const release = await connectAdmin();
    try {
      const out = await command.run(args);
      console.log(json ? JSON.stringify(out.json) : out.text);
      return out.exitCode ?? 0;
    } finally {
      await thumbnailRenderer.close();
      await release();
    }
  } catch (err) {
    // The operator's mistakes in a command's arguments come with that command's usage.
    if (err instanceof UsageError && !err.usage) throw new UsageError(err.message, commandUsage([command]));
    throw err;
  }
}

const KNOWN_ERRORS = [
  "UsageError",
  "BundleError",
  "BundleInvalid",
  "PublishError",
  "ConfigError",
  "AlreadyRunningError",
];

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
