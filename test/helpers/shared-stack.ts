import { readFileSync } from "node:fs";
import { inject } from "vitest";
import { armFaults } from "./faults.ts";
import type { RunningStack } from "./local-stack.ts";
import { moveClock } from "./async-http.ts";
import type { SharedStackInfo } from "./stack-broker.ts";

/** A stack this file shares with the other files of its worker: released, never stopped. */
export interface SharedStack extends RunningStack {
  /** Puts the test hooks back (no fault armed, clock not moved) for the worker's next file. */
  release(): Promise<void>;
}

/**
 * The worker's stack with default settings (`startStack()`'s), from the suite's stack
 * broker (stack-broker.ts): files run on it one after another, each in workspaces, users
 * and clients of its own (createTenant, makeUser…), never the seeded ones, which earlier
 * files may have used. A file that needs other settings, a restart, a kill, the whole
 * output or a stack of its own starts one with `startStack`. `output()` is what the stack
 * printed since this file took it.
 */
export async function sharedStack(): Promise<SharedStack> {
  const broker = inject("stackBroker");
  if (!broker) throw new Error("no stack broker: run the suite with test/vitest.config.ts (its globalSetup)");
  const res = await fetch(`${broker}/acquire?pool=${process.env.VITEST_POOL_ID ?? "1"}`, { method: "POST" });
  if (res.status !== 200) throw new Error(`the stack broker could not start a stack:\n${await res.text()}`);
  const { outputFile, outputFrom, ...info } = (await res.json()) as SharedStackInfo;
  const refuse = (what: string) => () => {
    throw new Error(`a shared stack is not ${what} by a test file: start one with startStack()`);
  };
  const stack: SharedStack = {
    ...info,
    output: () => readFileSync(outputFile).subarray(outputFrom).toString("utf8"),
    stop: refuse("stopped"),
    kill: refuse("killed"),
    release: async () => {
      await armFaults(stack, []);
      await moveClock(stack, 0);
    },
  };
  return stack;
}
