import { appendFileSync } from "node:fs";
import fc from "fast-check";
import { hostRuns, seedFor } from "./fuzz-config.ts";
import { buildHostRequest, describeHostCase, hostCase, type HostTargets } from "./host-cases.ts";
import { failureOf, hostAnswerProblems, sendCase } from "./host-checks.ts";
import { type HostRoute, routeName } from "./host-routes.ts";

/**
 * Runs one route's cases (`FUZZ_RUNS`, its own seed) against a host and returns the first failure
 * (the request sent and the answer) or "", and the statuses seen. `prepare` runs before each case
 * (a fresh interaction for the auth host's screens).
 */
export async function fuzzRoute(
  origin: string,
  route: HostRoute,
  targets: HostTargets,
  prepare: () => Promise<void> = async () => {},
): Promise<{ failure: string; seed: number; statuses: Record<number, number> }> {
  const statuses: Record<number, number> = {};
  const name = routeName(route);
  const run = await fc.check(
    fc.asyncProperty(hostCase(route, targets), async (c) => {
      await prepare();
      const req = buildHostRequest(origin, route, c, targets);
      const answer = await sendCase(req.url, req.init);
      statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
      if (process.env.FUZZ_LOG) appendFileSync(process.env.FUZZ_LOG, `${answer.status} ${describeHostCase(req)}\n`);
      const problems = hostAnswerProblems(answer, String(req.init.method));
      if (problems.length)
        throw new Error(
          `${problems.join("; ")}\n  sent: ${describeHostCase(req)}\n  answer ${answer.status}: ${answer.bytes.toString("utf8").slice(0, 400)}`,
        );
    }),
    { numRuns: hostRuns(), seed: seedFor(name), endOnFailure: !process.env.FUZZ_SHRINK },
  );
  return { failure: failureOf(run), seed: run.seed, statuses };
}
