import { describe, expect, it } from "vitest";
import { resolveDesignFilter } from "#shared/webhooks/endpoint-input.ts";
import type { WebhookEndpoint } from "#shared/webhooks/endpoint-store.ts";
import { routeEvent } from "#shared/webhooks/routing.ts";

const endpoint = (id: string, over: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  endpointId: id,
  workspaceId: "W",
  url: `https://hooks.example.com/${id}`,
  enabled: true,
  designFilterType: "all",
  targetDesignIds: [],
  secret: "whsec_x",
  createdAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
  ...over,
});

const all = endpoint("all");
const invoiceOnly = endpoint("inv", { designFilterType: "selected", targetDesignIds: ["INVOICE", "OTHER"] });
const certOnly = endpoint("cert", { designFilterType: "selected", targetDesignIds: ["CERT"] });
const disabled = endpoint("off", { enabled: false });
const endpoints = [all, invoiceOnly, certOnly, disabled];
const ids = (list: WebhookEndpoint[]) => list.map((e) => e.endpointId);

describe("routeEvent (see shared/webhooks/README.md#which-endpoints-get-what)", () => {
  it("without webhookUrl: file.completed to every enabled endpoint whose filter matches", () => {
    expect(ids(routeEvent({ event: "file.completed", designId: "INVOICE" }, endpoints))).toEqual(["all", "inv"]);
    expect(ids(routeEvent({ event: "file.completed", designId: "CERT" }, endpoints))).toEqual(["all", "cert"]);
    expect(ids(routeEvent({ event: "file.completed", designId: "LABEL" }, endpoints))).toEqual(["all"]);
  });

  it("with webhookUrl: only that endpoint, whatever its design filter", () => {
    expect(
      ids(routeEvent({ event: "file.completed", designId: "INVOICE", webhookUrl: certOnly.url }, endpoints)),
    ).toEqual(["cert"]);
    expect(
      ids(routeEvent({ event: "file.failed", designId: "INVOICE", webhookUrl: invoiceOnly.url }, endpoints)),
    ).toEqual(["inv"]);
  });

  it("file.failed only with webhookUrl", () => {
    expect(routeEvent({ event: "file.failed", designId: "INVOICE" }, endpoints)).toEqual([]);
  });

  it("nothing for a webhookUrl whose endpoint was disabled or deleted after acceptance", () => {
    expect(routeEvent({ event: "file.completed", designId: "INVOICE", webhookUrl: disabled.url }, endpoints)).toEqual(
      [],
    );
    expect(
      routeEvent({ event: "file.completed", designId: "INVOICE", webhookUrl: "https://gone.example.com/" }, endpoints),
    ).toEqual([]);
  });

  it("matches the URL exactly (no normalisation): OpenAPI generateSyncSingle says equal", () => {
    expect(routeEvent({ event: "file.completed", designId: "X", webhookUrl: `${all.url}/` }, endpoints)).toEqual([]);
  });
});

describe("resolveDesignFilter (see shared/webhooks/README.md#registering-endpoints)", () => {
  it("stores selected without ids as all", () => {
    expect(resolveDesignFilter({ designFilterType: "selected" })).toEqual({
      designFilterType: "all",
      targetDesignIds: [],
    });
    expect(resolveDesignFilter({ designFilterType: "selected", targetDesignIds: [] })).toEqual({
      designFilterType: "all",
      targetDesignIds: [],
    });
  });

  it("ids alone mean selected; duplicates are dropped; all clears the list", () => {
    expect(resolveDesignFilter({ targetDesignIds: ["A", "B", "A"] })).toEqual({
      designFilterType: "selected",
      targetDesignIds: ["A", "B"],
    });
    expect(
      resolveDesignFilter({ designFilterType: "all" }, { designFilterType: "selected", targetDesignIds: ["A"] }),
    ).toEqual({
      designFilterType: "all",
      targetDesignIds: [],
    });
  });

  it("an update without filter fields keeps the current filter", () => {
    expect(resolveDesignFilter({}, { designFilterType: "selected", targetDesignIds: ["A"] })).toEqual({
      designFilterType: "selected",
      targetDesignIds: ["A"],
    });
  });

  it("refuses an unknown type and ids that are not strings", () => {
    expect(() => resolveDesignFilter({ designFilterType: "some" as "all" })).toThrow(/VALIDATION_FAILED/);
    expect(() => resolveDesignFilter({ targetDesignIds: [42 as unknown as string] })).toThrow(/VALIDATION_FAILED/);
  });
});
