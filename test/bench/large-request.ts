import { request } from "node:http";
import { cpus } from "node:os";
import type { SampleName } from "../helpers/sync-fixtures.ts";
import { sampleLabel, sampleParams } from "../helpers/sync-fixtures.ts";
import { removeDataDir, startStack } from "../helpers/local-stack.ts";
import { fmt } from "./stats.ts";

/**
 * The largest request: 100 files of the largest sample design through
 * sync multiple (ZIP bytes, time, X-File-Mapping size) and async multiple + download (the
 * 302 to S3, the build, the second download). Run by hand, on a quiet machine:
 * `node --import tsx test/bench/large-request.ts`. Default thresholds unless the
 * environment sets PLATEN_ZIP_REDIRECT_BYTES / PLATEN_FILE_MAPPING_MAX_BYTES.
 */
const log = (line = "") => console.log(line);
const SAMPLES: SampleName[] = ["invoice-ja", "certificate-en", "shipping-label"];

const stack = await startStack({ env: { PLATEN_ACCESS_LOG: "0" } });
const demo = stack.localJson.workspaces[0]!;
const designOf = (name: SampleName) => demo.designs.find((d) => d.label === sampleLabel(name))!;
const seconds = (since: number) => (performance.now() - since) / 1000;

/** POST with node:http: 100 X-File-Mapping entries outgrow fetch's 16 KiB header limit. */
function post(
  path: string,
  json: unknown,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const headers = { appkey: demo.appKey, "content-type": "application/json" };
    const req = request(`${stack.baseUrl}${path}`, { method: "POST", maxHeaderSize: 1024 * 1024, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(json));
  });
}

const body = (name: SampleName, n: number) => ({
  designId: designOf(name).id,
  version: designOf(name).latestVersion,
  contents: Array.from({ length: n }, (_, i) => ({ fileName: `${name}-${i}`, params: sampleParams(name) })),
});

async function largestSample(): Promise<SampleName> {
  const sizes: [SampleName, number][] = [];
  for (const name of SAMPLES) {
    const res = await post("/file/sync/multiple", body(name, 1));
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${res.body.toString()}`);
    sizes.push([name, res.body.length]);
    log(`  ${name}: 1-file ZIP ${fmt(res.body.length / 1024)} KiB`);
  }
  return sizes.sort((a, b) => b[1] - a[1])[0]![0];
}

async function waitCompleted(requestId: string): Promise<void> {
  for (;;) {
    const res = await fetch(`${stack.baseUrl}/file/status/${requestId}`, { headers: { appkey: demo.appKey } });
    const status = ((await res.json()) as { status: string }).status;
    if (status === "completed") return;
    if (status === "failed") throw new Error(`request ${requestId} failed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One download: the route's answer, then (after a 302) the presigned GET. */
async function timedDownload(requestId: string): Promise<string> {
  const t0 = performance.now();
  const res = await fetch(`${stack.baseUrl}/file/download/${requestId}`, {
    headers: { appkey: demo.appKey },
    redirect: "manual",
  });
  const answered = seconds(t0);
  if (res.status === 200)
    return `200 streamed ${fmt((await res.arrayBuffer()).byteLength / 1e6, 2)} MB in ${fmt(seconds(t0), 2)} s`;
  if (res.status !== 302) throw new Error(`download answered ${res.status}`);
  const t1 = performance.now();
  const zip = await fetch(res.headers.get("location")!);
  const bytes = (await zip.arrayBuffer()).byteLength;
  return `302 after ${fmt(answered, 2)} s, presigned GET ${zip.status} ${fmt(bytes / 1e6, 2)} MB in ${fmt(seconds(t1), 2)} s`;
}

try {
  log(`large request — ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}`);
  const name = await largestSample();
  log(`largest sample: ${name}; 100 files of it:`);
  const t0 = performance.now();
  const sync = await post("/file/sync/multiple", body(name, 100));
  if (sync.status !== 200)
    throw new Error(`sync multiple answered ${sync.status}: ${sync.body.toString().slice(0, 300)}`);
  const mapping = String(sync.headers["x-file-mapping"] ?? "");
  log(
    `  sync multiple: 200 in ${fmt(seconds(t0), 2)} s, ZIP ${fmt(sync.body.length / 1e6, 2)} MB, X-File-Mapping ${fmt(mapping.length / 1024, 1)} KiB, ${sync.headers["x-page-count"]} pages`,
  );
  const t1 = performance.now();
  const accepted = await post("/file/async/multiple", body(name, 100));
  const acceptedIn = seconds(t1);
  const { requestId } = JSON.parse(accepted.body.toString()) as { requestId: string };
  await waitCompleted(requestId);
  log(`  async multiple: 202 in ${fmt(acceptedIn * 1000)} ms, completed in ${fmt(seconds(t1), 2)} s`);
  log(`  first download: ${await timedDownload(requestId)}`);
  log(`  second download: ${await timedDownload(requestId)}`);
} finally {
  await stack.stop();
  removeDataDir(stack.dataDir);
}
