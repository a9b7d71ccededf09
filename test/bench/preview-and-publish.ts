import { randomBytes } from "node:crypto";
import { crc32, deflateSync } from "node:zlib";
import { bundleZip } from "#shared/authoring/bundle-codec.ts";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import type { RunningStack } from "../helpers/local-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { fmt, percentile } from "./stats.ts";

/**
 * The design API's figures: a preview of the sample invoice against a sync render of the same
 * (alternating, c=1, both through the local stack's HTTP edge with the same Bearer token, so the
 * difference is the preview's own path, not the credential's), and publishing a 1 MB bundle (the
 * invoice plus a 1 MB image it shows) as a zip, thumbnail included.
 */
export async function runDesignPhase(
  stack: RunningStack,
  bundle: DesignBundle,
  renders: number,
  publishes: number,
): Promise<string[]> {
  useStackEmulators(stack.dataDir);
  const demo = stack.localJson.workspaces[0]!;
  const invoice = demo.designs.find((d) => d.label.includes("請求書"))!.id;
  const client = await makeConfidentialClient(demo.id, ["designs:read", "designs:write", "pdf:generate"]);
  const token = await clientCredentialsToken(stack, client, "designs:read designs:write pdf:generate");
  const bearer = { authorization: `Bearer ${token}` };
  const params = bundle.manifest.sampleParams ?? {};

  const timed = async (send: () => Promise<Response>, expected: number) => {
    const started = performance.now();
    const res = await send();
    await res.arrayBuffer();
    if (res.status !== expected) throw new Error(`answered ${res.status}, expected ${expected}`);
    return performance.now() - started;
  };
  const preview = () =>
    fetch(`${stack.baseUrl}/designs/preview`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ designId: invoice, version: 1 }),
    });
  const sync = () =>
    fetch(`${stack.baseUrl}/file/sync/single`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({ designId: invoice, version: 1, content: { fileName: "bench", params } }),
    });
  for (let i = 0; i < 3; i++) {
    await timed(preview, 200);
    await timed(sync, 200);
  }
  const previews: number[] = [];
  const syncs: number[] = [];
  for (let i = 0; i < renders; i++) {
    previews.push(await timed(preview, 200));
    syncs.push(await timed(sync, 200));
  }

  const image = noisePng(600, 600);
  const big: DesignBundle = {
    ...bundle,
    template: `${bundle.template}\n<img src="assets/noise.png" alt="" style="width: 30mm">`,
    assets: { ...bundle.assets, "assets/noise.png": { contentType: "image/png", body: image } },
  };
  const zip = await bundleZip(big);
  const created = await fetch(`${stack.baseUrl}/designs`, {
    method: "POST",
    headers: { ...bearer, "content-type": "application/zip" },
    body: new Uint8Array(zip),
  });
  if (created.status !== 201) throw new Error(`create answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };
  const publishTimes: number[] = [];
  for (let i = 0; i < publishes; i++) {
    // A different note each time; the same bytes (the content hash dedupes the stored bundle, not the thumbnail render).
    publishTimes.push(
      await timed(
        () =>
          fetch(`${stack.baseUrl}/designs/${id}/versions?note=bench-${i}`, {
            method: "POST",
            headers: { ...bearer, "content-type": "application/zip" },
            body: new Uint8Array(zip),
          }),
        201,
      ),
    );
  }
  const [pp50, sp50] = [percentile(previews, 50), percentile(syncs, 50)];
  return [
    "| design API, c=1 | p50 ms | p95 ms | target |",
    "|---|---|---|---|",
    `| preview of the sample invoice (POST /designs/preview) | ${fmt(pp50)} | ${fmt(percentile(previews, 95))} | ≤ 1.2 × sync p50: ×${fmt(pp50 / sp50, 2)} |`,
    `| sync single of the same, same token (POST /file/sync/single) | ${fmt(sp50)} | ${fmt(percentile(syncs, 95))} | – |`,
    `| publish a ${fmt(zip.length / 1024 / 1024, 2)} MB bundle zip, thumbnail included (POST /designs/{id}/versions) | ${fmt(percentile(publishTimes, 50))} | ${fmt(percentile(publishTimes, 95))} | ≤ 1,000 ms |`,
  ];
}

/** A PNG of random pixels: it does not compress, so its size is what the bundle carries. */
function noisePng(width: number, height: number): Buffer {
  const rows = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) randomBytes(width * 3).copy(rows, y * (width * 3 + 1) + 1);
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(2, 9); // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
