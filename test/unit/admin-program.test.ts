import { describe, expect, it } from "vitest";
import { FAMILY_LOADERS, type FamilyName, FIRST_WORDS, familiesFor } from "#infra/admin/command-families.ts";
import { type AdminCommand, parseCommandLine, UsageError } from "#infra/admin/program.ts";

const families = Object.fromEntries(
  await Promise.all(Object.entries(FAMILY_LOADERS).map(async ([name, load]) => [name, (await load()).commands])),
) as Record<FamilyName, AdminCommand[]>;
const commands: AdminCommand[] = Object.values(families).flat();

describe("the admin CLI's command modules", () => {
  it("name each command's first word with the module that holds it, and no word besides", () => {
    const words = new Map<string, string>();
    for (const [family, list] of Object.entries(families))
      for (const c of list) words.set(c.name.split(" ")[0]!, family);
    expect(Object.fromEntries(words)).toEqual(FIRST_WORDS);
  });

  it("load only the module a command line names, and every module for help or an unknown word", async () => {
    const names = async (argv: string[]) =>
      (await familiesFor(argv)).flatMap((f) => f.commands.map((c) => c.name.split(" ")[0]));
    expect(new Set(await names(["webhook", "list", "--workspace", "W"]))).toEqual(new Set(["webhook"]));
    expect(new Set(await names(["help", "usage"]))).toEqual(new Set(["usage"]));
    expect(new Set(await names(["--help"]))).toEqual(new Set(Object.keys(FIRST_WORDS)));
    expect(new Set(await names(["webhok", "list"]))).toEqual(new Set(Object.keys(FIRST_WORDS)));
  });
});

describe("the admin CLI's command table", () => {
  it("has one entry per name, and every option a usage line shows is one its command declares", () => {
    const names = commands.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of commands) {
      const declared = (c.options ?? []).map((flags) => flags.split(" ")[0]);
      const shown = c.usage.match(/--[a-z0-9-]+/g) ?? [];
      expect(
        shown.filter((o) => !declared.includes(o)),
        c.name,
      ).toEqual([]);
    }
  });

  it("hands the command its operands and options, repeatable ones as lists", async () => {
    const request = await parseCommandLine(commands, [
      "webhook",
      "update",
      "EP1",
      "--workspace",
      "W1",
      "--design",
      "D1",
      "--design",
      "D2,D3",
      "--json",
    ]);
    expect(request?.command.name).toBe("webhook update");
    expect(request?.args.operands).toEqual(["EP1"]);
    expect(request?.args.values).toMatchObject({ workspace: "W1", design: ["D1", "D2,D3"] });
    expect(request?.json).toBe(true);
    const client = await parseCommandLine(commands, [
      "oauth-client",
      "create",
      "--workspace",
      "W1",
      "--name",
      "site",
      "--public",
      "--redirect-uri",
      "https://a.example/cb",
      "--redirect-uri",
      "https://b.example/cb",
    ]);
    expect(client?.args.values).toMatchObject({
      public: true,
      redirectUri: ["https://a.example/cb", "https://b.example/cb"],
    });
    expect(client?.json).toBe(false);
  });

  it("refuses an option the command does not take, with that command's usage", async () => {
    const refused = parseCommandLine(commands, ["member", "list", "--workspace", "W1", "--role", "read"]);
    await expect(refused).rejects.toBeInstanceOf(UsageError);
    await expect(refused).rejects.toMatchObject({
      message: "Unknown option '--role'",
      usage: "usage: npm run admin -- member list --workspace ID [--json]",
    });
  });
});
