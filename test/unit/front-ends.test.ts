import { describe, expect, it } from "vitest";
import { frontEndFor } from "#shared/definitions/front-ends.ts";

describe("local front-end routing (shared/definitions/front-ends.ts)", () => {
  const all = () => true;

  it("leaves /v1 to the API route table and gives every other path to the site", () => {
    expect(frontEndFor("/v1/file/designs", all)).toBeUndefined();
    expect(frontEndFor("/v1", all)).toBeUndefined();
    expect(frontEndFor("/", all)?.function).toBe("site");
    expect(frontEndFor("/file/a/b", all)?.function).toBe("site");
    expect(frontEndFor("/v1x", all)?.function).toBe("site");
  });

  it("skips a front end whose function is not defined", () => {
    expect(frontEndFor("/docs/errors", (fn) => fn !== "site")).toBeUndefined();
  });
});
