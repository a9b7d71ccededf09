import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "#shared/clock.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { rotateAppKey } from "#shared/workspaces/app-key-rotation.ts";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant } from "../helpers/sync-fixtures.ts";
import { adminCliArgs } from "../helpers/local-build.ts";

/**
 * Application-key rotation through the admin CLI and the domain (OpenAPI rotateApplicationKey), and the
 * 90-day warning (README.md#authentication) on a moved clock. The HTTP route is covered by management-api.
 */

const repoRoot = resolve(import.meta.dirname, "../..");
const DAY_MS = 24 * 3600 * 1000;
let stack: SharedStack;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
});

afterAll(async () => {
  await stack?.release();
});

async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, await adminCliArgs(...args), {
      cwd: repoRoot,
      env: { ...process.env, PLATEN_DATA_DIR: stack.dataDir, ...env },
    });
    return { code: 0, stdout, stderr: "" };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

const designs = (appKey: string) => api(stack, appKey)("/file/designs");
const moveClock = (offsetMs: number) =>
  fetch(`http://127.0.0.1:${stack.port}/__local/clock`, { method: "POST", body: JSON.stringify({ offsetMs }) });

describe("workspace rotate-key (admin CLI)", () => {
  it("returns a new key that works at once; the old key is refused by the very next request; the rotation is audited", async () => {
    const tenant = await createTenant(stack, "cli rotation");
    expect((await designs(tenant.appKey)).status).toBe(200);
    const out = await cli(["workspace", "rotate-key", tenant.workspaceId, "--json"]);
    expect(out.code, out.stderr).toBe(0);
    const rotated = JSON.parse(out.stdout) as { id: string; applicationKey: string; lastRotatedAt: string };
    expect(rotated).toEqual({
      id: tenant.workspaceId,
      applicationKey: expect.stringMatching(/^plt_[0-9A-Za-z]{40}$/),
      lastRotatedAt: expect.any(String),
    });
    const old = await designs(tenant.appKey);
    expect(old.status).toBe(401);
    expect(await old.json()).toMatchObject({ code: "INVALID_CREDENTIALS" });
    expect((await designs(rotated.applicationKey)).status).toBe(200);

    const shown = JSON.parse((await cli(["workspace", "show", tenant.workspaceId, "--json"])).stdout);
    expect(shown).toMatchObject({ id: tenant.workspaceId, lastRotatedAt: rotated.lastRotatedAt, keyAgeDays: 0 });
    expect(shown.warning).toBeUndefined();
    const audit = JSON.parse((await cli(["audit", "list", "--workspace", tenant.workspaceId, "--json"])).stdout);
    expect(audit).toEqual([
      expect.objectContaining({
        workspaceId: tenant.workspaceId,
        action: "application-key.rotate",
        actor: { via: "admin-cli" },
        at: expect.any(String),
      }),
    ]);
  });

  it("refuses an unknown workspace with one line and exit 1", async () => {
    const out = await cli(["workspace", "rotate-key", "NoSuchWorkspace1", "--json"]);
    expect(out.code).toBe(1);
    // One line: the message, then the command's usage (infra/admin/program.ts).
    expect(out.stderr.trim().split("\n")).toHaveLength(1);
    expect(out.stderr.trim()).toMatch(/^admin: workspace NoSuchWorkspace1 not found/);
  });
});

describe("concurrent rotations", () => {
  it("leave exactly one valid key; every loser gets 409 APP_KEY_ROTATION_CONFLICT with the winner's lastRotatedAt", async () => {
    const tenant = await createTenant(stack, "concurrent rotation");
    let conflicts = 0;
    for (let round = 0; round < 3; round++) {
      const results = await Promise.allSettled([0, 1, 2].map(() => rotateAppKey(tenant.workspaceId, systemClock)));
      const winners = results.flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
      const losers = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
      expect(winners.length).toBeGreaterThanOrEqual(1);
      conflicts += losers.length;
      for (const loser of losers) {
        expect(isPlatenError(loser) && loser.code).toBe("APP_KEY_ROTATION_CONFLICT");
        expect(isPlatenError(loser) && loser.status).toBe(409);
        // The loser learns a rotation that happened: one of the winners'.
        expect(winners.map((w) => w.lastRotatedAt)).toContain(isPlatenError(loser) && loser.vars.lastRotatedAt);
      }
      // Of every key handed out, exactly one authenticates: the last winner's.
      const statuses = await Promise.all(winners.map(async (w) => (await designs(w.applicationKey)).status));
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 401)).toHaveLength(winners.length - 1);
    }
    // Three rotations started together read the same key: the race really happened.
    expect(conflicts).toBeGreaterThan(0);
    expect((await designs(tenant.appKey)).status).toBe(401);
  });
});

describe("the 90-day warning (see README.md#authentication)", () => {
  it("appears on responses to a key older than 90 days, in `workspace show`, and goes away with a rotation", async () => {
    const tenant = await createTenant(stack, "old key");
    const fresh = await designs(tenant.appKey);
    expect(fresh.headers.get("warning")).toBeNull();
    expect(fresh.headers.get("x-platen-key-age-days")).toBeNull();
    try {
      expect((await moveClock(91 * DAY_MS)).status).toBe(200);
      const old = await designs(tenant.appKey);
      expect(old.status).toBe(200);
      expect(old.headers.get("x-platen-key-age-days")).toBe("91");
      expect(old.headers.get("warning")).toMatch(/^299 platen ".*rotated 91 days ago.*application-token\/regenerate"$/);
      // Refusals after authentication carry it too.
      const missing = await api(stack, tenant.appKey)("/file/status/NoSuchRequest123");
      expect(missing.status).toBe(404);
      expect(missing.headers.get("x-platen-key-age-days")).toBe("91");

      const shown = await cli(["workspace", "show", tenant.workspaceId], {
        PLATEN_CLOCK_OFFSET_MS: String(91 * DAY_MS),
      });
      expect(shown.stdout).toMatch(/WARNING: The application key was last rotated 91 days ago/);
      const json = JSON.parse(
        (
          await cli(["workspace", "show", tenant.workspaceId, "--json"], {
            PLATEN_CLOCK_OFFSET_MS: String(91 * DAY_MS),
          })
        ).stdout,
      );
      expect(json).toMatchObject({ keyAgeDays: 91, warning: expect.stringContaining("91 days") });

      const rotated = JSON.parse(
        (
          await cli(["workspace", "rotate-key", tenant.workspaceId, "--json"], {
            PLATEN_CLOCK_OFFSET_MS: String(91 * DAY_MS),
          })
        ).stdout,
      );
      const renewed = await designs(rotated.applicationKey);
      expect(renewed.status).toBe(200);
      expect(renewed.headers.get("warning")).toBeNull();
    } finally {
      await moveClock(0);
    }
  });

  it("is not sent at 90 days exactly", async () => {
    const tenant = await createTenant(stack, "ninety days");
    try {
      await moveClock(90 * DAY_MS - 60_000);
      const res = await designs(tenant.appKey);
      expect(res.status).toBe(200);
      expect(res.headers.get("warning")).toBeNull();
    } finally {
      await moveClock(0);
    }
  });
});
