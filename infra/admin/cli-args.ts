import { type ParseArgsConfig, parseArgs } from "node:util";
import { closest } from "fastest-levenshtein";

export type Args = { positionals: string[]; values: Record<string, string | boolean | undefined> };
export type Command = (args: Args) => Promise<{ json: unknown; text: string }>;

/**
 * One file's commands for the admin CLI: the handlers, the options they read and their
 * usage, one line per command starting with its name (`  webhook list --workspace ID`).
 * cli.ts lists the groups; help, per-command `--help` and "did you mean" come from here.
 */
export interface CommandGroup {
  commands: Record<string, Command>;
  options: NonNullable<ParseArgsConfig["options"]>;
  usage: string;
}

export const PROGRAM = "npm run admin --";

/** The value of a required `--name` option, or the usage error naming it. */
export const need = (args: Args, name: string): string => {
  const v = args.values[name];
  if (typeof v !== "string" || !v) throw new UsageError(`--${name} is required`);
  return v;
};
const HELP_WORDS = new Set(["help", "--help", "-h"]);

/** A mistake of the operator: printed as one line (plus usage), exit code 1, never a stack trace. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage?: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

/** What the words on the command line ask for: help (general or of one command), or a command to run. */
export type Request = { kind: "help"; text: string } | { kind: "run"; name: string; command: Command; usage: string };

export function resolveRequest(groups: CommandGroup[], argv: string[]): Request {
  const commands = Object.assign({}, ...groups.map((g) => g.commands)) as Record<string, Command>;
  // Lenient here (unknown options are the command's business): only the words matter.
  const words = parseArgs({
    args: argv,
    options: allOptions(groups),
    strict: false,
    allowPositionals: true,
  }).positionals;
  const asksHelp = argv.length === 0 || HELP_WORDS.has(argv[0]!) || argv.some((a) => a === "--help" || a === "-h");
  const wanted = HELP_WORDS.has(words[0] ?? "") ? words.slice(1) : words;
  const name = commandName(commands, wanted);
  if (name)
    return asksHelp
      ? { kind: "help", text: commandUsage(groups, name) }
      : { kind: "run", name, command: commands[name]!, usage: commandUsage(groups, name) };
  if (asksHelp && !wanted.length) return { kind: "help", text: generalUsage(groups) };
  // `webhook` alone, or `webhook --help`: the family's commands.
  const family =
    wanted.length === 1 && Object.keys(commands).some((n) => n.startsWith(`${wanted[0]} `)) ? wanted[0]! : undefined;
  if (family && asksHelp) return { kind: "help", text: commandUsage(groups, family) };
  if (family) throw new UsageError(`"${family}" needs a subcommand; \`${PROGRAM} ${family} --help\` lists them`);
  throw unknownCommand(Object.keys(commands), wanted);
}

/** Two-word commands first (`design list`), then one-word ones (`usage`). */
function commandName(commands: Record<string, Command>, words: string[]): string | undefined {
  const two = words.slice(0, 2).join(" ");
  if (words.length >= 2 && two in commands) return two;
  return words[0] !== undefined && words[0] in commands ? words[0] : undefined;
}

function unknownCommand(names: string[], words: string[]): UsageError {
  if (!words.length) return new UsageError(`no command given; run \`${PROGRAM} --help\` for the list`);
  const typed = words.slice(0, 2).join(" ");
  // Compare like with like: "worksapce create" against two-word names, "usgae" against one-word ones.
  const sameLength = names.filter((n) => n.split(" ").length === Math.min(words.length, 2));
  const suggestion = closest(typed, sameLength.length ? sameLength : names);
  return new UsageError(
    `unknown command "${typed}"; did you mean "${suggestion}"? Run \`${PROGRAM} --help\` for the list`,
  );
}

export function generalUsage(groups: CommandGroup[]): string {
  const lines = groups.flatMap((g) => usageLines(g.usage));
  return [
    `usage: ${PROGRAM} <command> [options] [--json]`,
    ...lines,
    "",
    `${PROGRAM} <command> --help shows one command's usage.`,
  ].join("\n");
}

export function commandUsage(groups: CommandGroup[], name: string): string {
  const lines = groups
    .flatMap((g) => usageLines(g.usage))
    .filter((l) => l.trim() === name || l.trim().startsWith(`${name} `));
  return lines.map((l, i) => `${i === 0 ? "usage:" : "      "} ${PROGRAM} ${l.trim()} [--json]`).join("\n");
}

const usageLines = (usage: string) => usage.split("\n").filter((l) => l.trim() !== "");

/** Every group's options in one parser configuration (groups share names such as --workspace). */
export const allOptions = (groups: CommandGroup[]) =>
  Object.assign({ json: { type: "boolean" } }, ...groups.map((g) => g.options));
