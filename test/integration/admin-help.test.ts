import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The admin CLI's help as an operator meets it, in child processes.
 * Help and mistakes in the command line are answered before anything connects, so no
 * stack is needed (and none is started: the data folder given does not exist).
 */

const repoRoot = resolve(import.meta.dirname, "../..");
const env = { ...process.env, PLATEN_DATA_DIR: resolve(repoRoot, "does-not-exist-admin-help") };

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, args, { cwd: repoRoot, env }, (err, stdout, stderr) => {
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const admin = (...args: string[]) => run(process.execPath, ["--import", "tsx", "infra/admin/cli.ts", ...args]);

/** A command of each file that registers commands (cli.ts, webhooks, identity, signing). */
const SOME_COMMANDS = [
  "workspace create",
  "design publish",
  "usage",
  "webhook create",
  "webhook redeliver",
  "user create",
  "oauth-client list",
  "signing-identity add",
];

describe("admin CLI help", () => {
  it("prints the usage of every command and exits 0 for `npm run admin -- --help`", async () => {
    const out = await run("npm", ["run", "--silent", "admin", "--", "--help"]);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(/^usage: npm run admin -- <command>/);
    for (const name of SOME_COMMANDS) expect(out.stdout).toContain(`\n  ${name} `);
    expect(out.stderr).not.toMatch(/positional|Unknown option/);
  });

  it.each([["-h"], ["help"], []])("prints the same usage and exits 0 for %j", async (...args: string[]) => {
    const out = await admin(...args);
    expect([out.code, out.stderr]).toEqual([0, ""]);
    expect(out.stdout).toMatch(/^usage: npm run admin -- <command>/);
    for (const name of SOME_COMMANDS) expect(out.stdout).toContain(`\n  ${name} `);
  });

  it.each([
    [
      ["workspace", "create", "--help"],
      "usage: npm run admin -- workspace create --name NAME [--plan free|personal|standard|premium] [--json]",
    ],
    [["help", "webhook", "list"], "usage: npm run admin -- webhook list --workspace ID [--json]"],
  ])("gives each command its own help: %j", async (args, first) => {
    const out = await admin(...args);
    expect(out.code).toBe(0);
    expect(out.stdout.split("\n")[0]).toContain(first);
    expect(out.stdout.trim().split("\n")).toHaveLength(1);
  });

  it("lists a family's commands for `design --help`", async () => {
    const out = await admin("design", "--help");
    expect(out.code).toBe(0);
    expect(
      out.stdout
        .trim()
        .split("\n")
        .map((l) =>
          l
            .replace(/^usage:/, "")
            .trim()
            .split(" ")
            .slice(4, 6)
            .join(" "),
        ),
    ).toEqual(["design publish", "design list", "design inline-bundles"]);
  });

  it.each([
    [["worksapce", "create", "--name", "x"], "workspace create"],
    [["webhok", "list"], "webhook list"],
    [["memebr", "add", "--help"], "member add"],
  ])("names the closest command for an unknown one: %j", async (args, closest) => {
    const out = await admin(...args);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`did you mean "${closest}"?`);
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("answers a wrong option with one line naming that command's usage, exit 1", async () => {
    const out = await admin("workspace", "create", "--nmae", "Acme");
    expect(out.code).toBe(1);
    expect(out.stderr.trim().split("\n")).toEqual([
      "admin: Unknown option '--nmae' (usage: npm run admin -- workspace create --name NAME [--plan free|personal|standard|premium] [--json])",
    ]);
  });

  it("says a family word alone needs a subcommand, in one line", async () => {
    const out = await admin("webhook");
    expect(out.code).toBe(1);
    expect(out.stderr.trim().split("\n")).toEqual([
      'admin: "webhook" needs a subcommand; `npm run admin -- webhook --help` lists them',
    ]);
  });
});
