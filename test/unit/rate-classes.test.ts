import { describe, expect, it } from "vitest";
import { routes } from "#infra/definitions/routes.ts";
import { rateClassOf } from "#shared/limits/limits-config.ts";

describe("rate classes (spec 8)", () => {
  it("the route table's rateClass agrees with the spec's path rule the middleware applies", () => {
    for (const route of routes) {
      const expected = route.rateClass === "none" ? undefined : route.rateClass;
      expect([route.method, route.path, rateClassOf(`/v1${route.path}`)]).toEqual([route.method, route.path, expected]);
    }
  });

  it("classifies the spec's examples", () => {
    expect(rateClassOf("/v1/file/sync/single")).toBe("sync");
    expect(rateClassOf("/v1/file/async/multiple")).toBe("async");
    expect(rateClassOf("/v1/file/download/abc/def")).toBe("retrieval");
    expect(rateClassOf("/v1/file/design/parameter/abc")).toBe("retrieval");
    expect(rateClassOf("/v1/file/designs")).toBe("retrieval");
    expect(rateClassOf("/v1/file/status/abc")).toBe("status");
    expect(rateClassOf("/v1/health/check")).toBeUndefined();
  });
});
