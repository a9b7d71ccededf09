import { familiesFor } from "./command-families.ts";
import { connectAdmin } from "./connection.ts";
import { commandUsage, parseCommandLine, UsageError } from "./program.ts";

async function main(argv: string[]): Promise<number> {
  // Only the module of the command asked for is loaded (command-families.ts).
  const families = await familiesFor(argv);
  const request = await parseCommandLine(
    families.flatMap((f) => f.commands),
    argv,
  );
  if (!request) return 0; // help was asked for and printed
  const { command, args, json } = request;
  try {
    const release = await connectAdmin();
    try {
      const out = await command.run(args);
      console.log(json ? JSON.stringify(out.json) : out.text);
      return out.exitCode ?? 0;
    } finally {
      for (const family of families) await family.close?.();
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
