import { PutObjectCommand } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { s3 } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { buckets } from "#shared/definitions/buckets.ts";
import { getDesignVersion } from "#shared/designs/design-store.ts";
import { FILE_PAGES_PREFIX, filePagesPrefix } from "#shared/page-images/file-page-source.ts";
import { s3PageStore } from "#shared/page-images/s3-page-store.ts";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { type RunningStack, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { invoice, moveClock, siteOrigin } from "../helpers/site-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";

/**
 * The file view's page images over HTTP against `npm start` (functions/site/README.md#page-images):
 * drawn on the first request and cached in the files bucket, more pages by link, the file view's
 * access rules, protected PDFs, expiry. On the worker's shared stack, in two workspaces of the file's own
 * shaped like the seed's, each with its ADMIN.
 */
type Workspace = RunningStack["localJson"]["workspaces"][number];
let stack: SharedStack;
let wsDemo: Workspace;
let wsSecond: Workspace;
let site: string;
let demo = "";
let second = "";

interface StoredFile {
  requestId: string;
  fileId: string;
  workspaceId: string;
  path: string;
  pageCount: number;
}
let long: StoredFile;
let other: StoredFile;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const pngWidth = (png: Buffer) => png.readUInt32BE(16);
const pngHeight = (png: Buffer) => png.readUInt32BE(20);

async function logIn(user: { email: string; password: string }): Promise<string> {
  const res = await fetch(`${site}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: user.email, password: user.password, return_to: "/" }).toString(),
    redirect: "manual",
  });
  return (res.headers.getSetCookie() ?? []).map((c) => c.split(";")[0]).join("; ");
}

const get = (path: string, cookie = "") => fetch(`${site}${path}`, { headers: { cookie }, redirect: "manual" });
const imagesOf = (page: string) => [...page.matchAll(/<img src="([^"]+\/pages\/\d+\.png)"[^>]*>/g)].map((m) => m[0]);

/** An object of the bucket as the page cache reads it (undefined when missing). */
const s3Object = (key: string, bucket: "files" | "designs" = "files") => s3PageStore(bucket).get(key);

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  site = siteOrigin(stack);
  [wsDemo, wsSecond] = await Promise.all([createSeededLike(stack, "Demo"), createSeededLike(stack, "Second", "free")]);
  const [demoAdmin, secondAdmin] = await Promise.all([
    makeUser({ [wsDemo.id]: "admin" }),
    makeUser({ [wsSecond.id]: "admin" }),
  ]);
  [demo, second] = await Promise.all([logIn(demoAdmin), logIn(secondAdmin)]);
  [long, other] = await Promise.all([invoice(stack, wsDemo, "長い請求書", 200), invoice(stack, wsSecond, "other", 1)]);
  await settled(stack);
});

afterAll(async () => {
  await stack?.release();
});

describe("the file view's page images", () => {
  it("shows the first 3 pages as sized images with alt text and no PDF frame; the download stays", async () => {
    expect(long.pageCount).toBeGreaterThan(6);
    const res = await get(long.path, demo);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toContain("img-src 'self'");
    const page = await res.text();
    expect(page).not.toContain("<iframe");
    const images = imagesOf(page);
    expect(images).toHaveLength(3);
    expect(images[0]).toContain(`src="${long.path}/pages/1.png"`);
    // The size the page says is the size of the image drawn (no jump when it loads): A4 portrait.
    const [, width, height] = images[0]!.match(/width="(\d+)" height="(\d+)"/)!;
    const drawn = Buffer.from(await (await get(`${long.path}/pages/1.png`, demo)).arrayBuffer());
    expect([pngWidth(drawn), pngHeight(drawn)]).toEqual([Number(width), Number(height)]);
    expect(Number(height) / Number(width)).toBeCloseTo(Math.SQRT2, 2);
    expect(images[0]).toContain(`alt="Page 1 of ${long.pageCount}"`);
    expect(page).toContain(`id="more-pages" href="${long.path}?pages=6#page-4"`);
    expect(page).toContain(`id="download" href="${long.path}/download"`);
    const ja = await (
      await fetch(`${site}${long.path}`, { headers: { cookie: demo, "accept-language": "ja" } })
    ).text();
    expect(imagesOf(ja)[1]).toContain(`alt="${long.pageCount} ページ中 2 ページ目"`);
    expect(ja).toContain("さらに 3 ページ表示");
  });

  it("draws an image on its first request, caches it next to the file, and serves the cache afterwards", async () => {
    const prefix = filePagesPrefix(long);
    expect(await s3Object(`${prefix}/index.json`)).toBeDefined(); // the page view wrote the index
    expect(await s3Object(`${prefix}/2.png`)).toBeUndefined();
    const first = await get(`${long.path}/pages/2.png`, demo);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("image/png");
    expect(first.headers.get("cache-control")).toMatch(/^private, max-age=\d+$/);
    expect(first.headers.get("x-content-type-options")).toBe("nosniff");
    const png = Buffer.from(await first.arrayBuffer());
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(pngWidth(png)).toBe(1000);
    expect((await s3Object(`${prefix}/2.png`))?.equals(png)).toBe(true);
    // The cached object is what the next view gets: replaced in the bucket, the answer follows it.
    const marker = Buffer.concat([png.subarray(0, 33), Buffer.from("cached")]);
    await (await s3()).client.send(
      new PutObjectCommand({ Bucket: config().buckets.files, Key: `${prefix}/2.png`, Body: marker }),
    );
    const again = await get(`${long.path}/pages/2.png`, demo);
    expect(Buffer.from(await again.arrayBuffer()).equals(marker)).toBe(true);
  });

  it("shows more pages on demand by link, until every page is shown", async () => {
    const six = await (await get(`${long.path}?pages=6`, demo)).text();
    expect(imagesOf(six)).toHaveLength(6);
    expect(imagesOf(six)[3]).toContain('loading="lazy"');
    expect(six).toContain(`?pages=${Math.min(9, long.pageCount)}#page-7`);
    const all = await (await get(`${long.path}?pages=${long.pageCount + 50}`, demo)).text();
    expect(imagesOf(all)).toHaveLength(long.pageCount);
    expect(all).not.toContain('id="more-pages"');
    for (const odd of ["abc", "0", "-2", "1e3"])
      expect(imagesOf(await (await get(`${long.path}?pages=${odd}`, demo)).text()), odd).toHaveLength(
        odd === "0" ? 1 : 3,
      );
    const last = await get(`${long.path}/pages/${long.pageCount}.png`, demo);
    expect(last.status).toBe(200);
    expect(last.headers.get("content-type")).toBe("image/png");
    for (const bad of [`${long.pageCount + 1}`, "0", "01", "x", "1.5"])
      expect((await get(`${long.path}/pages/${bad}.png`, demo)).status, bad).toBe(404);
  });

  it("answers another workspace's file, and an anonymous visitor, as not found, drawing nothing", async () => {
    for (const path of [other.path, `${other.path}/pages/1.png`]) {
      expect((await get(path, demo)).status, path).toBe(404);
      expect((await get(path)).status, path).toBe(404);
    }
    expect((await get(`${long.path}/pages/1.png`)).status).toBe(404);
    expect((await get(`${long.path}/pages/1.png`, second)).status).toBe(404);
    expect(await s3Object(`${filePagesPrefix(other)}/index.json`)).toBeUndefined();
    expect(await s3Object(`${filePagesPrefix(other)}/1.png`)).toBeUndefined();
    // Its own workspace sees it.
    expect((await get(`${other.path}/pages/1.png`, second)).status).toBe(200);
  });

  it("shows a protected PDF's notice instead of images, and draws none of it", async () => {
    const [locked, restricted] = await Promise.all([
      invoice(stack, wsDemo, "locked", 1, { protection: { password: "open-sesame-1" } }),
      invoice(stack, wsDemo, "restricted", 1, { protection: { allowCopying: false } }),
    ]);
    for (const file of [locked, restricted]) {
      const page = await (await get(file.path, demo)).text();
      expect(page).toContain('id="pages-protected"');
      expect(imagesOf(page)).toHaveLength(0);
      expect(page).toContain(`id="download" href="${file.path}/download"`);
      expect((await get(`${file.path}/pages/1.png`, demo)).status).toBe(404);
      expect(JSON.parse((await s3Object(`${filePagesPrefix(file)}/index.json`))!.toString())).toEqual({
        encrypted: true,
        pages: [],
      });
      expect(await s3Object(`${filePagesPrefix(file)}/1.png`)).toBeUndefined();
    }
    const ja = await (
      await fetch(`${site}${locked.path}`, { headers: { cookie: demo, "accept-language": "ja" } })
    ).text();
    expect(ja).toContain("保護されているため");
  });

  it("goes with its file: kept where the files bucket expires them after a day, and answered 410 once the file expired", async () => {
    const prefix = filePagesPrefix(long);
    expect(prefix.startsWith(FILE_PAGES_PREFIX)).toBe(true);
    // The lifecycle rule that removes them in AWS (infra/stack/data.ts turns each into a rule; test/infra/data.test.ts).
    expect(buckets.files.prefixExpiry).toContainEqual({ prefix: FILE_PAGES_PREFIX, days: 1 });
    expect((await get(`${long.path}/pages/1.png`, demo)).status).toBe(200);
    expect(await s3Object(`${prefix}/1.png`)).toBeDefined();
    await moveClock(stack, 40 * 86_400_000);
    try {
      expect((await get(long.path, demo)).status).toBe(410);
      expect((await get(`${long.path}/pages/1.png`, demo)).status).toBe(410);
      expect((await get(`${long.path}/pages/4.png`, demo)).status).toBe(410);
    } finally {
      await moveClock(stack, 0);
    }
  });
});

describe("a design version's sample pages", () => {
  it("links each version's sample from the history, and shows the sample as page images drawn once and cached beside the bundle", async () => {
    const ws = wsDemo;
    const design = ws.designs.find((d) => d.label.includes("請求書"))!;
    const history = await (await get(`/designs/${design.id}/versions`, demo)).text();
    const base = `/designs/${design.id}/versions/1/sample`;
    expect(history).toContain(`href="${base}"`);
    const res = await get(base, demo);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).not.toContain("<iframe");
    const images = imagesOf(page);
    expect(images.length).toBeGreaterThan(0);
    expect(images[0]).toContain(`src="${base}/pages/1.png"`);
    const image = await get(`${base}/pages/1.png`, demo);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("cache-control")).toMatch(/^private/);
    const png = Buffer.from(await image.arrayBuffer());
    const version = (await getDesignVersion(ws.id, design.id, 1))!;
    const prefix = `${version.bundleKey.replace(/\.json$/, "")}.marked-sample`;
    const pdf = await s3Object(`${prefix}/document.pdf`, "designs");
    expect(pdf?.subarray(0, 5).toString()).toBe("%PDF-");
    expect((await s3Object(`${prefix}/1.png`, "designs"))?.equals(png)).toBe(true);
    // The cached sample is what the next view draws from: nothing is rendered again.
    const marker = Buffer.concat([png.subarray(0, 33), Buffer.from("cached")]);
    await (await s3()).client.send(
      new PutObjectCommand({ Bucket: config().buckets.designs, Key: `${prefix}/1.png`, Body: marker }),
    );
    expect(Buffer.from(await (await get(`${base}/pages/1.png`, demo)).arrayBuffer()).equals(marker)).toBe(true);
  });

  it("keeps a sample to its workspace's members; unknown versions and pages are not found", async () => {
    const design = wsDemo.designs[0]!;
    const base = `/designs/${design.id}/versions/1/sample`;
    expect((await get(base, second)).status).toBe(404);
    expect((await get(`${base}/pages/1.png`, second)).status).toBe(404);
    const anonymous = await get(base);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toContain("/login");
    expect((await get(`/designs/${design.id}/versions/999/sample`, demo)).status).toBe(404);
    expect((await get(`/designs/${design.id}/versions/x/sample/pages/1.png`, demo)).status).toBe(404);
    for (const bad of ["0", "99", "a"]) expect((await get(`${base}/pages/${bad}.png`, demo)).status, bad).toBe(404);
  });
});
