import { Command, CommanderError } from "commander";
import { closest } from "fastest-levenshtein";

export const PROGRAM = "npm run admin --";

/** A command's operands and option values as commander parsed them (`--redirect-uri` is `values.redirectUri`). */
export type Args = { operands: string[]; values: Record<string, string | string[] | boolean | undefined> };
/** What a command printed; `exitCode` (default 0) when the answer itself is a finding, e.g. a reconciliation that differs. */
export type Output = { json: unknown; text: string; exitCode?: number };

/** One admin command: one entry of the table in cli.ts. */
export interface AdminCommand {
  /** The words that name it: `webhook list`. */
  name: string;
  /** What follows the name in its usage line: `--workspace ID [--limit N]`. */
  usage: string;
  /** Its operands (`<dir>`, `[id]`) and options (`--url <url>`, `--design <id...>` repeatable, `--public`), commander's syntax. */
  operands?: string[];
  options?: string[];
  run(args: Args): Promise<Output>;
}

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

/** The value of a required `--name` option, or the usage error naming it. */
export const need = (args: Args, name: string): string => {
  const v = args.values[name];
  if (typeof v !== "string" || !v) throw new UsageError(`--${name} is required`);
  return v;
};

/** What the command line asks for: a command to run, or nothing more (its help was printed). */
export type Request = { command: AdminCommand; args: Args; json: boolean } | undefined;

/**
 * Parses the command line with commander: it dispatches, checks each command's options and
 * prints help; help goes to stdout, a mistake is thrown as a UsageError carrying the usage.
 */
export async function parseCommandLine(commands: AdminCommand[], argv: string[]): Promise<Request> {
  let request: Request;
  const program = adminProgram(commands, (found) => {
    request = found;
  });
  try {
    await program.parseAsync(helpLast(argv), { from: "user" });
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return undefined; // help printed
    throw err;
  }
  return request;
}

/** `help X`, `-h X` and `X --help` all ask for X's usage: commander reads the last form. */
function helpLast(argv: string[]): string[] {
  const isFlag = (a: string) => a === "--help" || a === "-h";
  const asked = argv[0] === "help" || argv.some(isFlag);
  const words = (argv[0] === "help" ? argv.slice(1) : argv).filter((a) => !isFlag(a));
  return asked ? [...words, "--help"] : argv;
}

function adminProgram(commands: AdminCommand[], found: (request: Request) => void): Command {
  const help = new Map<Command, string>();
  const program = new Command()
    .enablePositionalOptions() // `workspace create --help` is the command's --help, not the program's
    .helpCommand(false)
    .showSuggestionAfterError(false)
    .configureOutput({ outputError: () => {} }) // cli.ts prints each error as one line
    .configureHelp({ formatHelp: (cmd) => `${help.get(cmd)}\n` })
    .exitOverride();
  const families = new Map<string, Command>();
  // A command that is also the first word of others (`usage`, `usage reconcile`) carries them.
  const leaves = new Map<string, Command>();
  for (const entry of commands) {
    const [first, second] = entry.name.split(" ") as [string, string | undefined];
    let parent = program;
    if (second) {
      parent = leaves.get(first) ?? families.get(first) ?? family(program, first, commands);
      if (!leaves.has(first)) families.set(first, parent);
    }
    const leaf = parent.command(second ?? first);
    if (!second) leaves.set(first, leaf);
    for (const operand of entry.operands ?? []) leaf.argument(operand);
    for (const flags of [...(entry.options ?? []), "--json"]) leaf.option(flags);
    const usage = commandUsage([entry]);
    help.set(leaf, usage);
    leaf.exitOverride((err) => {
      throw err.exitCode === 0 ? err : new UsageError(commanderMessage(err), usage);
    });
    leaf.action(() => {
      const values = leaf.opts();
      found({ command: entry, args: { operands: leaf.args, values }, json: Boolean(values.json) });
    });
  }
  for (const [word, cmd] of families)
    help.set(cmd, commandUsage(commands.filter((c) => c.name.startsWith(`${word} `))));
  help.set(program, generalUsage(commands));
  // The program's own words: nothing or --help is the general usage; anything else is no command.
  return program
    .helpOption(false)
    .option("-h, --help")
    .allowUnknownOption()
    .argument("[words...]")
    .action((words: string[]) => {
      if (words.length) throw unknownCommand(commands, words);
      program.outputHelp();
    });
}

/** `webhook …`: without a known subcommand, the family names its commands. */
function family(program: Command, word: string, commands: AdminCommand[]): Command {
  return program
    .command(word)
    .allowUnknownOption()
    .argument("[words...]")
    .action((words: string[]) => {
      if (words.length) throw unknownCommand(commands, [word, ...words]);
      throw new UsageError(`"${word}" needs a subcommand; \`${PROGRAM} ${word} --help\` lists them`);
    });
}

/** commander's `error: unknown option '--nmae'` as `Unknown option '--nmae'`. */
function commanderMessage(err: CommanderError): string {
  const message = err.message.replace(/^error: /, "");
  return message.charAt(0).toUpperCase() + message.slice(1);
}

function unknownCommand(commands: AdminCommand[], words: string[]): UsageError {
  const names = commands.map((c) => c.name);
  const typed = words.slice(0, 2).join(" ");
  // Compare like with like: "worksapce create" against two-word names, "usgae" against one-word ones.
  const sameLength = names.filter((n) => n.split(" ").length === Math.min(words.length, 2));
  const suggestion = closest(typed, sameLength.length ? sameLength : names);
  return new UsageError(
    `unknown command "${typed}"; did you mean "${suggestion}"? Run \`${PROGRAM} --help\` for the list`,
  );
}

const usageLine = (c: AdminCommand) => `${PROGRAM} ${c.name} ${c.usage} [--json]`;

/** One command's usage, or a family's, one line each: `usage: npm run admin -- webhook list --workspace ID [--json]`. */
export const commandUsage = (commands: AdminCommand[]) =>
  commands.map((c, i) => `${i === 0 ? "usage:" : "      "} ${usageLine(c)}`).join("\n");

function generalUsage(commands: AdminCommand[]): string {
  return [
    `usage: ${PROGRAM} <command> [options] [--json]`,
    ...commands.map((c) => `  ${c.name} ${c.usage}`),
    "",
    `${PROGRAM} <command> --help shows one command's usage.`,
  ].join("\n");
}
