import { describe, expect, it } from "vitest";
import { designCommands } from "#infra/admin/design-commands.ts";
import { identityCommands } from "#infra/admin/identity-commands.ts";
import { type AdminCommand, parseCommandLine, UsageError } from "#infra/admin/program.ts";
import { webhookCommands } from "#infra/admin/webhook-commands.ts";
import { workspaceCommands } from "#infra/admin/workspace-commands.ts";

const commands: AdminCommand[] = [...workspaceCommands, ...designCommands, ...webhookCommands, ...identityCommands];

describe("the admin CLI's command table", () => {
  it("has one entry per name, and every option a usage line shows is one its command declares", () => {
    const names = commands.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of commands) {
      const declared = (c.options ?? []).map((flags) => flags.split(" ")[0]);
      const shown = c.usage.match(/--[a-z-]+/g) ?? [];
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
