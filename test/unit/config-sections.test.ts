import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fileRetentionDays } from "#shared/aws/config.ts";
import { archiveLinkSettings } from "#shared/generation/http/archive-link.ts";
import { fileMappingMaxBytes } from "#shared/generation/http/file-mapping-cap.ts";
import { readFairShareConfig } from "#shared/generation/scheduling/fair-share.ts";
import { planLimits, previewAllowances, rateLimits } from "#shared/limits/limits-config.ts";
import { defaultBrowserCount, readDocumentLimits, readRenderConfig } from "#shared/render/render-config.ts";
import { readWebhookSettings } from "#shared/webhooks/webhook-settings.ts";
import { readStartSettings } from "#infra/local/start-settings.ts";

/** Expects `read` to stop with a ConfigError that names `name`. */
function expectRefused(read: () => unknown, name: string): void {
  expect(read).toThrow(expect.objectContaining({ name: "ConfigError", message: expect.stringContaining(name) }));
}

/**
 * Each section of settings: its defaults as they were before the sections shared one parser,
 * and one bad value that stops it (infra/README.md#configuration).
 */
describe("configuration sections", () => {
  it("render: pool, budget and per-document limits", () => {
    expect(readRenderConfig({})).toEqual({
      browsers: defaultBrowserCount({}),
      recycleAfter: 500,
      gcEvery: 25,
      timeoutMs: 30_000,
      chromiumPath: undefined,
      fontDir: undefined,
      launchAtInit: false,
      limits: { maxPages: 2_000, maxHtmlChars: 20_000_000, maxPdfBytes: 50_000_000 },
    });
    expect(readRenderConfig({ RENDER_LAUNCH_AT_INIT: "1", RENDER_BROWSERS: "3" })).toMatchObject({
      launchAtInit: true,
      browsers: 3,
    });
    // One browser per core, at most one per GiB of the Lambda's memory.
    expect(defaultBrowserCount({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "2048" })).toBe(Math.min(availableParallelism(), 2));
    expect(defaultBrowserCount({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: "512" })).toBe(1);
    expectRefused(() => readRenderConfig({ RENDER_TIMEOUT_MS: "30s" }), "RENDER_TIMEOUT_MS");
    expectRefused(() => readRenderConfig({ RENDER_LAUNCH_AT_INIT: "true" }), "RENDER_LAUNCH_AT_INIT");
    expectRefused(() => readDocumentLimits({ PLATEN_MAX_PAGES: "0" }), "PLATEN_MAX_PAGES");
  });

  it("fair rendering: the work allowance scales with the container's browsers", () => {
    expect(readFairShareConfig({}, 3)).toEqual({
      workMs: 6_000,
      minInFlight: 2,
      initialAvgMs: 200,
      timeoutPenaltyMs: 60_000,
      maxDeferSeconds: 20,
    });
    expectRefused(() => readFairShareConfig({ PLATEN_RENDER_WORKSPACE_MIN: "two" }, 1), "PLATEN_RENDER_WORKSPACE_MIN");
  });

  it("large responses: ZIP link and X-File-Mapping cap", () => {
    expect(archiveLinkSettings({})).toEqual({ redirectBytes: 6_000_000, urlSeconds: 300 });
    expect(fileMappingMaxBytes({})).toBe(65_536);
    expectRefused(() => archiveLinkSettings({ PLATEN_ZIP_URL_SECONDS: "604801" }), "PLATEN_ZIP_URL_SECONDS");
    expectRefused(() => fileMappingMaxBytes({ PLATEN_FILE_MAPPING_MAX_BYTES: "64k" }), "PLATEN_FILE_MAPPING_MAX_BYTES");
  });

  it("limits: rates, plans and preview pages, overridden key by key", () => {
    expect(rateLimits({})).toEqual({
      sync: 30,
      async: 100,
      retrieval: 100,
      status: 300,
      preview: 60,
      "design-write": 60,
    });
    expect(planLimits({})).toEqual({
      free: { monthlyPages: 30, stops: true },
      personal: { monthlyPages: 500, stops: true },
      standard: { monthlyPages: 1000, stops: false },
      premium: { monthlyPages: 10000, stops: false },
    });
    expect(previewAllowances({})).toEqual({ free: 300, personal: 3000, standard: 10000, premium: 50000 });
    expect(rateLimits({ PLATEN_RATE_LIMITS: '{"sync":5}' })).toMatchObject({ sync: 5, async: 100 });
    expectRefused(() => planLimits({ PLATEN_PLAN_PAGES: "free=30" }), "PLATEN_PLAN_PAGES");
  });

  it("webhooks: delay scale, receiver deadline, attempts in flight per workspace", () => {
    expect(readWebhookSettings({})).toEqual({ delayScale: 1, timeoutMs: 15_000, workspaceInFlight: 5 });
    expect(readWebhookSettings({ PLATEN_WEBHOOK_DELAY_SCALE: "0.01" }).delayScale).toBe(0.01);
    expectRefused(() => readWebhookSettings({ PLATEN_WEBHOOK_TIMEOUT_MS: "-1" }), "PLATEN_WEBHOOK_TIMEOUT_MS");
  });

  it("file retention: the files bucket's 30 days", () => {
    expect(fileRetentionDays({})).toBe(30);
    expect(fileRetentionDays({ PLATEN_FILE_RETENTION_DAYS: "7" })).toBe(7);
    expectRefused(() => fileRetentionDays({ PLATEN_FILE_RETENTION_DAYS: "a month" }), "PLATEN_FILE_RETENTION_DAYS");
  });

  it("npm start: port, data dir, test hooks and the test scales", () => {
    expect(readStartSettings({})).toEqual({
      port: 3000,
      dataDir: resolve(".platen"),
      testHooks: false,
      timeoutScale: 1,
      visibilityScale: 1,
      sweepSeconds: undefined,
    });
    expect(readStartSettings({ PORT: "0", PLATEN_TEST_HOOKS: "1", PLATEN_VISIBILITY_SCALE: "0.005" })).toMatchObject({
      port: 0,
      testHooks: true,
      visibilityScale: 0.005,
    });
    expectRefused(() => readStartSettings({ PORT: "70000" }), "PORT");
  });
});

describe("the clock's test offset (read when shared/clock.ts loads)", () => {
  const saved = process.env.PLATEN_CLOCK_OFFSET_MS;
  afterEach(() => {
    if (saved === undefined) delete process.env.PLATEN_CLOCK_OFFSET_MS;
    else process.env.PLATEN_CLOCK_OFFSET_MS = saved;
    vi.resetModules();
  });

  it("is 0 unset, the integer given, and stops the module on anything else", async () => {
    delete process.env.PLATEN_CLOCK_OFFSET_MS;
    vi.resetModules();
    expect((await import("#shared/clock.ts")).clockOffset()).toBe(0);
    process.env.PLATEN_CLOCK_OFFSET_MS = "-5000";
    vi.resetModules();
    expect((await import("#shared/clock.ts")).clockOffset()).toBe(-5000);
    process.env.PLATEN_CLOCK_OFFSET_MS = "1 day";
    vi.resetModules();
    await expect(import("#shared/clock.ts")).rejects.toThrow('PLATEN_CLOCK_OFFSET_MS must be an integer (got "1 day")');
  });
});
