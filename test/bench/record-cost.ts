import { systemClock } from "#shared/clock.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import type { RunningStack } from "../helpers/local-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { fmt, percentile } from "./stats.ts";

/**
 * What keeping a record adds to a sync single of the 1-page invoice (shared/records/README.md): the same
 * design published once more with design.json `record`, both sent through the local stack's HTTP edge at
 * c=1, alternating, so the difference is the record's own work: its fields evaluated, the PDF kept under
 * its lock, the record appended to the chain, all before the answer.
 */
export async function runRecordCostPhase(
  stack: RunningStack,
  bundle: DesignBundle,
  renders: number,
): Promise<string[]> {
  useStackEmulators(stack.dataDir);
  const demo = stack.localJson.workspaces[0]!;
  const plain = demo.designs.find((d) => d.label.includes("請求書"))!.id;
  const recorded = await publishDesign(
    {
      workspaceId: demo.id,
      bundle: {
        ...bundle,
        manifest: {
          ...bundle.manifest,
          label: `${bundle.manifest.label} (records)`,
          record: {
            type: "invoice",
            date: "発行日",
            amount: "明細[0].単価",
            counterparty: "請求先",
            number: "請求番号",
          },
        },
      },
    },
    { clock: systemClock },
  );
  const params = bundle.manifest.sampleParams ?? {};
  const sync = async (designId: string, version: number) => {
    const started = performance.now();
    const res = await fetch(`${stack.baseUrl}/file/sync/single`, {
      method: "POST",
      headers: { appkey: demo.appKey, "content-type": "application/json" },
      body: JSON.stringify({ designId, version, content: { fileName: "bench", params } }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`sync single answered ${res.status}`);
    return performance.now() - started;
  };
  for (let i = 0; i < 5; i++) {
    await sync(plain, 1);
    await sync(recorded.id, recorded.version);
  }
  const withoutRecord: number[] = [];
  const withRecord: number[] = [];
  for (let i = 0; i < renders; i++) {
    withoutRecord.push(await sync(plain, 1));
    withRecord.push(await sync(recorded.id, recorded.version));
  }
  const [p50Plain, p50Record] = [percentile(withoutRecord, 50), percentile(withRecord, 50)];
  return [
    `kept record (design.json record), sync single through the local stack, c=1, ${renders} each alternating: ` +
      `${fmt(p50Plain)} → ${fmt(p50Record)} ms p50 (+${fmt(p50Record - p50Plain, 1)} ms; p95 ${fmt(percentile(withoutRecord, 95))} → ${fmt(percentile(withRecord, 95))})`,
  ];
}
