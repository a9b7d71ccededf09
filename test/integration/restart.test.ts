import { afterAll, expect, it } from "vitest";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";

let stack: RunningStack | undefined;
afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

it("keeps workspaces, designs and stored objects across a clean stop and a crash, and never re-seeds", async () => {
  stack = await startStack({ fresh: true }); // the first start seeds
  const first = stack.localJson;
  const demo = first.workspaces[0]!;
  const design = demo.designs[0]!;
  const thumbBefore = Buffer.from(
    await (await api(stack, demo.appKey)(`/file/designs/${design.id}/thumbnail`)).arrayBuffer(),
  );
  expect(stack.output()).toContain("seeded workspace Demo");
  await stack.stop();

  stack = await startStack({ dataDir: stack.dataDir });
  expect(stack.output()).not.toContain("seeded workspace");
  expect(stack.localJson.workspaces.map((w) => [w.id, w.appKey, w.designs])).toEqual(
    first.workspaces.map((w) => [w.id, w.appKey, w.designs]),
  );
  const list = await (await api(stack, demo.appKey)("/file/designs")).json();
  expect(list.total).toBe(5);
  const thumbAfter = Buffer.from(
    await (await api(stack, demo.appKey)(`/file/designs/${design.id}/thumbnail`)).arrayBuffer(),
  );
  expect(thumbAfter.equals(thumbBefore)).toBe(true);

  await stack.kill(); // SIGKILL: no shutdown hook runs
  stack = await startStack({ dataDir: stack.dataDir });
  expect(stack.output()).not.toContain("seeded workspace");
  const again = await api(stack, demo.appKey)(`/file/design/parameter/${design.id}`);
  expect(again.status).toBe(200);
});
