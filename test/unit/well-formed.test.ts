import { describe, expect, it } from "vitest";
import { illFormedPaths } from "#shared/validation/well-formed.ts";

/** shared/validation/README.md#well-formed-text-only: where a body holds a lone surrogate. */
describe("illFormedPaths", () => {
  it("names every ill-formed string and key, in document order, keys shown with U+FFFD", () => {
    const body = { a: "ok", "k\ud800": { x: ["\udc00", "fine", { "\ud801": "\ud802" }] }, b: "\ud803", e: "😀" };
    expect(illFormedPaths(body)).toEqual([
      ["k\ufffd"],
      ["k\ufffd", "x", 0],
      ["k\ufffd", "x", 2, "\ufffd"],
      ["k\ufffd", "x", 2, "\ufffd"],
      ["b"],
    ]);
    expect(illFormedPaths("\ud800")).toEqual([[]]);
  });

  it("walks 100,000 nested arrays or objects without overflowing the stack (it answered 500)", () => {
    const depth = 100_000;
    expect(illFormedPaths(JSON.parse(`${"[".repeat(depth)}${"]".repeat(depth)}`))).toEqual([]);
    const deep = JSON.parse(`${'{"a":'.repeat(depth)}"\\ud800"${"}".repeat(depth)}`);
    const [path] = illFormedPaths(deep);
    expect(path).toHaveLength(depth);
  });
});
