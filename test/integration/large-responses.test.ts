import JSZip from "jszip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRequestArchive } from "#shared/generation/http/download-archive.ts";
import { liveRequestDeps } from "#shared/generation/store/index.ts";
import { invoiceItems, invoiceOf } from "../helpers/async-fixtures.ts";
import { acceptOrFail, download, errorOf, hostOf, moveClock, pollStatus } from "../helpers/async-http.ts";
import { api, type RunningStack, removeDataDir, settled, startStack } from "../helpers/local-stack.ts";
import { pagesUsedNow, rendererStats } from "../helpers/limits-stack.ts";
import { makeUser, sessionOf, useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { fileRecordsOfWorkspace, useStackEmulators } from "../helpers/stack-clients.ts";
import { decodeFileMapping, parseContentDisposition } from "../helpers/sync-http.ts";

/**
 * Large answers on the real local stack: request ZIPs over the threshold
 * leave through a presigned S3 GET (302), served by the gateway with S3's signature and
 * expiry checks; X-File-Mapping headers over the cap are refused before anything renders
 * or counts. Small thresholds here; the defaults are in the unit tests.
 */

type Workspace = RunningStack["localJson"]["workspaces"][number];

const REDIRECT_BYTES = 100_000; // one invoice PDF is ~70 KB: a 1-file ZIP streams, a 3-file one redirects
const URL_SECONDS = 120;
const MAPPING_MAX = 4096;

let stack: RunningStack;
let demo: Workspace;
let other: Workspace;
let invoice: { designId: string; version: number };

const bytesOf = async (res: Response) => Buffer.from(await res.arrayBuffer());
const noRedirect = (requestId: string, appKey: string) =>
  api(stack, appKey)(`/file/download/${requestId}`, { redirect: "manual" });

/** The ZIP the download route streams for a request, built the same way in this process from the stack's stores. */
async function streamedZip(requestId: string, workspaceId: string): Promise<Buffer> {
  useStackEmulators(stack.dataDir);
  const archive = await openRequestArchive(requestId, workspaceId, liveRequestDeps);
  const chunks: Buffer[] = [];
  for await (const chunk of archive.stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * `served` is the archive the route streams: the same length, entries, order and bytes per
 * entry. Only the entries' DOS modification stamp may differ (a ZIP is stamped when built).
 */
async function expectSameArchive(served: Buffer, requestId: string): Promise<void> {
  const streamed = await streamedZip(requestId, demo.id);
  expect(served.length).toBe(streamed.length);
  const [a, b] = await Promise.all([JSZip.loadAsync(served), JSZip.loadAsync(streamed)]);
  expect(Object.keys(a.files)).toEqual(Object.keys(b.files));
  for (const name of Object.keys(b.files)) {
    const [x, y] = await Promise.all([a.file(name)!.async("nodebuffer"), b.file(name)!.async("nodebuffer")]);
    expect(x.equals(y), name).toBe(true);
  }
}

async function completedRequest(n: number): Promise<string> {
  const accepted = await acceptOrFail(stack, demo.appKey, "multiple", {
    ...invoice,
    contents: invoiceItems(n, `big-${n}`),
  });
  const done = await pollStatus(stack, demo.appKey, accepted.requestId);
  expect(done.body.status).toBe("completed");
  return accepted.requestId;
}

async function armZipPutFault(): Promise<void> {
  const res = await fetch(`${hostOf(stack)}/__local/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      rules: [{ service: "s3", command: "PutObjectCommand", detail: "zips/", action: "fail", times: 10 }],
    }),
  });
  expect(res.status).toBe(200);
}

/** Disarms the faults and returns how often each fired. */
async function disarmFaults(): Promise<number[]> {
  const hook = (body: unknown) =>
    fetch(`${hostOf(stack)}/__local/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  const { hits } = (await (await hook({})).json()) as { hits: number[] };
  await hook({ rules: [] });
  return hits;
}

beforeAll(async () => {
  stack = await startStack({
    env: {
      PLATEN_ZIP_REDIRECT_BYTES: String(REDIRECT_BYTES),
      PLATEN_ZIP_URL_SECONDS: String(URL_SECONDS),
      PLATEN_FILE_MAPPING_MAX_BYTES: String(MAPPING_MAX),
    },
  });
  demo = stack.localJson.workspaces[0]!;
  other = stack.localJson.workspaces[1]!;
  invoice = { designId: invoiceOf(demo).id, version: invoiceOf(demo).latestVersion };
});

afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

describe("GET /file/download/{requestId}: ZIPs over PLATEN_ZIP_REDIRECT_BYTES come from S3", () => {
  let requestId: string;
  let location: URL;
  let firstBody: Buffer;

  beforeAll(async () => {
    requestId = await completedRequest(3);
  });

  it("answers 302 to a short-lived presigned GET that returns the very ZIP the route would stream", async () => {
    const res = await noRedirect(requestId, demo.appKey);
    expect(res.status).toBe(302);
    expect(res.headers.get("cache-control")).toBe("no-store");
    location = new URL(res.headers.get("location")!);
    expect(location.pathname).toBe(`/__s3/platen-local-files/zips/${demo.id}/${requestId}.zip`);
    expect(location.searchParams.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
    expect(location.searchParams.get("X-Amz-Expires")).toBe(String(URL_SECONDS));
    // The URL itself is the credential: fetched without any key.
    const zip = await fetch(location);
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    const body = await bytesOf(zip);
    expect(zip.headers.get("content-length")).toBe(String(body.length));
    expect(body.length).toBeGreaterThan(REDIRECT_BYTES);
    expect(parseContentDisposition(zip.headers.get("content-disposition")).filenameStar).toMatch(
      new RegExp(`_${requestId}\\.zip$`),
    );
    await expectSameArchive(body, requestId);
    firstBody = body;
    const entries = Object.keys((await JSZip.loadAsync(body)).files);
    expect(entries).toEqual(["big-3-0.pdf", "big-3-1.pdf", "big-3-2.pdf"]);
  });

  it("builds the ZIP once: a second download stores nothing and links the same object", async () => {
    const fresh = await completedRequest(2);
    await armZipPutFault(); // any attempt to store a ZIP now fails its download
    let hits: number[];
    try {
      const res = await noRedirect(requestId, demo.appKey);
      expect(res.status).toBe(302);
      const again = new URL(res.headers.get("location")!);
      expect(again.pathname).toBe(location.pathname);
      const body = await bytesOf(await fetch(again));
      expect(body.equals(firstBody)).toBe(true); // the stored object itself, stamp included
      expect((await disarmFaults())[0]).toBe(0);
      // The fault is real: a request whose ZIP is not stored yet cannot be served while it holds.
      await armZipPutFault();
      const failing = await noRedirect(fresh, demo.appKey);
      expect(failing.status).toBe(500);
      expect(failing.headers.get("location")).toBeNull();
    } finally {
      hits = await disarmFaults();
    }
    expect(hits).toEqual([1]);
    const recovered = await download(stack, demo.appKey, fresh);
    expect(recovered.status).toBe(200);
    await expectSameArchive(await bytesOf(recovered), fresh);
  });

  it("follows like any download for a client that follows redirects (clients of OpenAPI downloadRequest)", async () => {
    const res = await download(stack, demo.appKey, requestId);
    expect(res.status).toBe(200);
    await expectSameArchive(await bytesOf(res), requestId);
  });

  it("lets a browser on another origin follow it: Location exposed, the presigned GET answers CORS and its preflight", async () => {
    const origin = "https://app.example";
    const res = await fetch(`${stack.baseUrl}/file/download/${requestId}`, {
      headers: { appkey: demo.appKey, origin },
      redirect: "manual",
    });
    expect(res.status).toBe(302);
    expect(res.headers.get("access-control-expose-headers")).toMatch(/\bLocation\b/);
    const target = res.headers.get("location")!;
    // A redirected fetch carries the API's `appkey` along: the browser asks S3 first.
    const preflight = await fetch(target, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "appkey" },
    });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("appkey");
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
    const zip = await fetch(target, { headers: { origin, appkey: demo.appKey } });
    expect(zip.status).toBe(200);
    expect(zip.headers.get("access-control-allow-origin")).toBe("*");
    expect(zip.headers.get("access-control-expose-headers")).toContain("Content-Disposition");
    await expectSameArchive(await bytesOf(zip), requestId);
  });

  it("authenticates and authorises first: another workspace's request id is 404 with no Location, a bad key 401", async () => {
    const foreign = await noRedirect(requestId, other.appKey);
    expect(foreign.headers.get("location")).toBeNull();
    const error = await errorOf(foreign);
    expect(error.status).toBe(404);
    expect(error.body.code).toBe("FILE_NOT_FOUND");
    const badKey = await noRedirect(requestId, `plt_${"x".repeat(40)}`);
    expect(badKey.status).toBe(401);
    expect(badKey.headers.get("location")).toBeNull();
  });

  it("refuses a tampered URL the way S3 does (signature, response headers, unsigned)", async () => {
    const forged = new URL(location);
    forged.searchParams.set("X-Amz-Signature", "0".repeat(64));
    const bad = await fetch(forged);
    expect(bad.status).toBe(403);
    expect(await bad.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
    const renamed = new URL(location);
    renamed.searchParams.set("response-content-disposition", 'attachment; filename="other.zip"');
    expect((await fetch(renamed)).status).toBe(403);
    const otherKey = new URL(location);
    otherKey.pathname = otherKey.pathname.replace(requestId, "ZzZz0000NoSuchId");
    expect((await fetch(otherKey)).status).toBe(403);
    const unsigned = await fetch(`${location.origin}${location.pathname}`);
    expect(unsigned.status).toBe(403);
    expect(await unsigned.text()).toContain("<Code>AccessDenied</Code>");
  });

  it("expires: past X-Amz-Expires on the service clock the same URL is 403, a fresh download works", async () => {
    try {
      await moveClock(stack, (URL_SECONDS + 5) * 1000);
      const expired = await fetch(location);
      expect(expired.status).toBe(403);
      expect(await expired.text()).toContain("Request has expired");
      const fresh = await noRedirect(requestId, demo.appKey);
      expect(fresh.status).toBe(302);
      expect((await fetch(fresh.headers.get("location")!)).status).toBe(200);
    } finally {
      await moveClock(stack, 0);
    }
  });

  it("streams a ZIP at or under the threshold as before (200, no redirect)", async () => {
    const small = await completedRequest(1);
    const res = await noRedirect(small, demo.appKey);
    expect(res.status).toBe(200);
    expect(res.headers.get("location")).toBeNull();
    await expectSameArchive(await bytesOf(res), small);
  });
});

describe("the site's output history ZIP follows the same threshold", () => {
  const siteZip = (requestId: string, cookie: string) =>
    fetch(`${hostOf(stack)}/output-history/${requestId}/download`, { headers: { cookie }, redirect: "manual" });

  it("answers a member 302 to the presigned GET above it and streams at or under it; another workspace's member gets 404", async () => {
    useStackEmulators(stack.dataDir);
    useStackIdentityKeys(stack);
    const member = await sessionOf((await makeUser({ [demo.id]: "read" })).id);
    const outsider = await sessionOf((await makeUser({ [other.id]: "admin" })).id);
    const [large, small] = [await completedRequest(3), await completedRequest(1)];

    const res = await siteZip(large, member);
    expect(res.status).toBe(302);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const target = new URL(res.headers.get("location")!);
    expect(target.pathname).toBe(`/__s3/platen-local-files/zips/${demo.id}/${large}.zip`);
    const zip = await fetch(target);
    expect(zip.status).toBe(200);
    await expectSameArchive(await bytesOf(zip), large);

    const streamed = await siteZip(small, member);
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("content-type")).toBe("application/zip");
    await expectSameArchive(await bytesOf(streamed), small);

    const foreign = await siteZip(large, outsider);
    expect(foreign.status).toBe(404);
    expect(foreign.headers.get("location")).toBeNull();
  });
});

describe("X-File-Mapping over PLATEN_FILE_MAPPING_MAX_BYTES (OpenAPI generateSyncMultiple)", () => {
  /** Two files whose passthrough alone makes a ~6 KB mapping. */
  const wide = () => ({
    ...invoice,
    contents: [0, 1].map((i) => ({
      fileName: `wide-${i}`,
      params: {},
      passthrough: { note: `${"n".repeat(3000)}-${i}` },
    })),
  });

  it("refuses before rendering, counting or writing anything, and points to ?response=json", async () => {
    await settled(stack);
    useStackEmulators(stack.dataDir);
    const recordsBefore = (await fileRecordsOfWorkspace(demo.id)).length;
    const rendersBefore = (await rendererStats(stack)).renders;
    const usageBefore = await pagesUsedNow(stack, demo.id);
    for (const lang of ["en", "ja"] as const) {
      const res = await api(stack, demo.appKey)("/file/sync/multiple", {
        method: "POST",
        headers: { "content-type": "application/json", "accept-language": lang },
        body: JSON.stringify(wide()),
      });
      const error = await errorOf(res);
      expect(error.status).toBe(400);
      expect(error.body.code).toBe("FILE_MAPPING_TOO_LARGE");
      expect(error.body.message).toContain("?response=json");
      expect(error.body.message).toContain(String(MAPPING_MAX));
      expect(error.body.docsUrl).toMatch(/#file_mapping_too_large$/);
      expect(res.headers.get("x-file-mapping")).toBeNull();
    }
    await settled(stack);
    expect((await fileRecordsOfWorkspace(demo.id)).length).toBe(recordsBefore);
    expect((await rendererStats(stack)).renders).toBe(rendersBefore);
    expect(await pagesUsedNow(stack, demo.id)).toBe(usageBefore);
  });

  it("answers the same request with ?response=json (entries in the body, no oversized header)", async () => {
    const res = await api(stack, demo.appKey)("/file/sync/multiple?response=json", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(wide()),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-file-mapping")).toBeNull();
    const body = (await res.json()) as { files: { fileName: string; passthrough: { note: string } }[] };
    expect(body.files.map((f) => f.fileName)).toEqual(["wide-0", "wide-1"]);
    expect(body.files[1]!.passthrough.note).toBe(`${"n".repeat(3000)}-1`);
  });

  it("keeps answering a mapping under the cap in the header", async () => {
    const res = await api(stack, demo.appKey)("/file/sync/multiple", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...invoice, contents: invoiceItems(2, "narrow") }),
    });
    expect(res.status).toBe(200);
    expect(decodeFileMapping(res.headers.get("x-file-mapping")).map((e) => e.fileName)).toEqual([
      "narrow-0",
      "narrow-1",
    ]);
    await res.arrayBuffer();
  });
});
