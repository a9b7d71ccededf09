import type { AdminCommand } from "./program.ts";

/** One module of the CLI's commands, and what it must close before the process ends. */
export interface CommandFamily {
  commands: AdminCommand[];
  close?: () => Promise<void>;
}

/**
 * The command modules, in the order `--help` lists them. Each is loaded only when asked for: a command's
 * module and what it imports (the SDK, Chromium's renderer, the design checks) cost seconds of start-up,
 * and a script or test runs one command per process.
 */
export const FAMILY_LOADERS = {
  workspace: async (): Promise<CommandFamily> => ({
    commands: (await import("./workspace-commands.ts")).workspaceCommands,
  }),
  design: async (): Promise<CommandFamily> => {
    const [{ designCommands }, { thumbnailRenderer }] = await Promise.all([
      import("./design-commands.ts"),
      import("#shared/authoring/thumbnails.ts"),
    ]);
    // Publishing renders the sample's thumbnail in Chromium: closed before the process exits.
    return { commands: designCommands, close: () => thumbnailRenderer.close() };
  },
  usage: async (): Promise<CommandFamily> => ({ commands: (await import("./usage-commands.ts")).usageCommands }),
  webhook: async (): Promise<CommandFamily> => ({ commands: (await import("./webhook-commands.ts")).webhookCommands }),
  identity: async (): Promise<CommandFamily> => ({
    commands: (await import("./identity-commands.ts")).identityCommands,
  }),
  signing: async (): Promise<CommandFamily> => ({ commands: (await import("./signing-commands.ts")).signingCommands }),
} as const;

export type FamilyName = keyof typeof FAMILY_LOADERS;

/** The module of each command's first word (a unit test keeps it complete). */
export const FIRST_WORDS: Record<string, FamilyName> = {
  workspace: "workspace",
  audit: "workspace",
  design: "design",
  usage: "usage",
  webhook: "webhook",
  user: "identity",
  member: "identity",
  "oauth-client": "identity",
  "signing-identity": "signing",
};

/**
 * The families a command line needs: the one its first word names (`help X` names X), or every family for
 * the program's own help and for a word no command starts with (its error suggests the closest name).
 */
export async function familiesFor(argv: string[]): Promise<CommandFamily[]> {
  const word = argv[0] === "help" ? argv[1] : argv[0];
  const family = word === undefined ? undefined : FIRST_WORDS[word];
  const names = family ? [family] : (Object.keys(FAMILY_LOADERS) as FamilyName[]);
  return Promise.all(names.map((name) => FAMILY_LOADERS[name]()));
}
