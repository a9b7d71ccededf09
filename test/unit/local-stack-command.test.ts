import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { expect, it } from "vitest";
import { STACK_NODE_ARGS } from "../helpers/local-stack.ts";

/**
 * The tests and benches start the stack as `npm start` does: the same Node flags, the heap
 * limit included, so what they measure (memory above all) is what a developer runs.
 */
it("starts the test stack with npm start's command", () => {
  const pkg = JSON.parse(readFileSync(resolve(import.meta.dirname, "../../package.json"), "utf8"));
  expect(pkg.scripts.start).toBe(`node ${STACK_NODE_ARGS.join(" ")}`);
});
