import { request } from "node:http";
import { inject } from "vitest";
import { functions } from "#shared/definitions/index.ts";

/**
 * Every function's bundle folder as the real stack deploys it (`{ id: codeDir }`), built
 * once per run by the suite's stack broker (stack-broker.ts) and shared by the files that
 * inspect bundles: a synthesis with bundling is most of a minute of esbuild, and each file
 * doing its own repeated it. Always all the functions, so every file gets the same build.
 * The folders are the run's: read them, never write to them.
 */
export async function deployedBundles(): Promise<Record<string, string>> {
  const broker = inject("stackBroker");
  if (!broker) throw new Error("no stack broker: run the suite with test/vitest.config.ts (its globalSetup)");
  const ids = Object.values(functions).map((def) => def.id);
  const url = new URL(`${broker}/bundles`);
  url.searchParams.set("ids", ids.join(","));
  // node:http, not fetch: fetch gives up on response headers after 300 s, and a build on a
  // loaded machine may take longer.
  const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(url, { method: "POST" }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
  if (status !== 200) throw new Error(`the stack broker could not bundle the functions:\n${body}`);
  return JSON.parse(body) as Record<string, string>;
}
