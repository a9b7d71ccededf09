import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import {
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  GetBucketAclCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { persistentS3 } from "#infra/local/persistent-s3-store.ts";

let dir: string;
const running: { server: Server; client: S3Client }[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "platen-s3store-"));
});
afterEach(async () => {
  for (const { server, client } of running.splice(0)) {
    client.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  rmSync(dir, { recursive: true, force: true });
});

/** The store on a free port, reached by the SDK as the handlers reach it; a second call is a restart. */
async function start(): Promise<S3Client> {
  const s3 = persistentS3(dir);
  const server = createServer((req, res) => void s3.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const client = new S3Client({
    region: "us-east-1",
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  running.push({ server, client });
  return client;
}

const put = (client: S3Client, Bucket: string, Key: string, body: string, more: object = {}) =>
  client.send(new PutObjectCommand({ Bucket, Key, Body: Buffer.from(body), ...more }));
const read = async (client: S3Client, Bucket: string, Key: string) => {
  const out = await client.send(new GetObjectCommand({ Bucket, Key }));
  return { ...out, text: await out.Body!.transformToString() };
};

describe("the local S3 store, files on disk behind the SDK's calls", () => {
  it("keeps objects, content types and metadata across a restart (one file per object, no temporary left)", async () => {
    const first = await start();
    await first.send(new CreateBucketCommand({ Bucket: "files" }));
    await put(first, "files", "ws/req/a.pdf", "%PDF-1.4 one", {
      ContentType: "application/pdf",
      Metadata: { pages: "1" },
    });
    await put(first, "files", "ws/req/a.pdf", "%PDF-1.4 two", {
      ContentType: "application/pdf",
      Metadata: { pages: "2" },
    });
    expect(readdirSync(join(dir, "files"))).toEqual([`${encodeURIComponent("ws/req/a.pdf")}@object`]);

    const again = await start();
    const obj = await read(again, "files", "ws/req/a.pdf");
    expect(obj.text).toBe("%PDF-1.4 two");
    expect(obj).toMatchObject({ ContentType: "application/pdf", Metadata: { pages: "2" }, ContentLength: 12 });
    const head = await again.send(new HeadObjectCommand({ Bucket: "files", Key: "ws/req/a.pdf" }));
    expect(head).toMatchObject({ ContentLength: 12, ContentType: "application/pdf", ETag: obj.ETag });
  });

  it("takes a streamed body of known length, as the ZIP upload sends it", async () => {
    const client = await start();
    await client.send(new CreateBucketCommand({ Bucket: "files" }));
    const body = Buffer.alloc(200_000, 7);
    await client.send(
      new PutObjectCommand({
        Bucket: "files",
        Key: "zips/w/r.zip",
        Body: Readable.from([body.subarray(0, 70_000), body.subarray(70_000)]),
        ContentLength: body.length,
        ContentType: "application/zip",
      }),
    );
    const out = await client.send(new GetObjectCommand({ Bucket: "files", Key: "zips/w/r.zip" }));
    expect(Buffer.from(await out.Body!.transformToByteArray()).equals(body)).toBe(true);
  });

  it("reads objects an earlier version wrote (bytes + .meta.json) and replaces them on the next put", async () => {
    mkdirSync(join(dir, "designs"));
    writeFileSync(join(dir, "designs", "k%2Fold.json"), '{"v":1}');
    writeFileSync(
      join(dir, "designs", "k%2Fold.json.meta.json"),
      JSON.stringify({ contentType: "application/json", metadata: {} }),
    );
    const client = await start();
    expect(await read(client, "designs", "k/old.json")).toMatchObject({
      ContentType: "application/json",
      text: '{"v":1}',
    });

    await put(client, "designs", "k/old.json", '{"v":2}', { ContentType: "application/json" });
    expect(readdirSync(join(dir, "designs"))).toEqual(["k%2Fold.json@object"]);
    expect((await read(await start(), "designs", "k/old.json")).text).toBe('{"v":2}');
  });

  it("a crash between writing an object and removing its old-format files: the new one wins", async () => {
    mkdirSync(join(dir, "files"));
    writeFileSync(join(dir, "files", "k"), "old bytes");
    writeFileSync(
      join(dir, "files", "k@object"),
      `${JSON.stringify({ contentType: "application/pdf", metadata: {} })}\nnew bytes`,
    );
    expect((await read(await start(), "files", "k")).text).toBe("new bytes");
  });

  it("keeps keys '.' and '..' inside their bucket, and survives a malformed head line", async () => {
    const client = await start();
    await client.send(new CreateBucketCommand({ Bucket: "files" }));
    await put(client, "files", ".", "dot");
    await put(client, "files", "..", "dotdot");
    expect(readdirSync(join(dir, "files")).sort()).toEqual(["..@object", ".@object"].sort());
    writeFileSync(join(dir, "files", "bad@object"), "null\nbytes");
    const again = await start();
    expect((await read(again, "files", "..")).text).toBe("dotdot");
    expect((await read(again, "files", "bad")).text).toBe("bytes");
  });

  it("deletes every file of an object", async () => {
    const client = await start();
    await client.send(new CreateBucketCommand({ Bucket: "files" }));
    await put(client, "files", "x", "bytes");
    await client.send(new DeleteObjectCommand({ Bucket: "files", Key: "x" }));
    expect(readdirSync(join(dir, "files"))).toEqual([]);
    const again = await start();
    await expect(again.send(new GetObjectCommand({ Bucket: "files", Key: "x" }))).rejects.toMatchObject({
      name: "NoSuchKey",
    });
    await expect(again.send(new HeadObjectCommand({ Bucket: "files", Key: "x" }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 404 },
    });
  });

  it("lists keys by prefix in order, with their sizes, a page at a time (ListObjectsV2)", async () => {
    const client = await start();
    await client.send(new CreateBucketCommand({ Bucket: "files" }));
    for (const key of ["files/w/r1/b.xml", "files/w/r1/a.pdf", "files/w/r2/c.xml", "files/w/r1/a & <b>.xml"]) {
      await put(client, "files", key, key.endsWith(".pdf") ? "%PDF-1.7" : "<x/>");
    }
    const all = await client.send(new ListObjectsV2Command({ Bucket: "files", Prefix: "files/w/r1/" }));
    expect(all.Contents?.map((c) => [c.Key, c.Size])).toEqual([
      ["files/w/r1/a & <b>.xml", 4],
      ["files/w/r1/a.pdf", 8],
      ["files/w/r1/b.xml", 4],
    ]);
    expect(all.IsTruncated).toBe(false);
    const first = await client.send(new ListObjectsV2Command({ Bucket: "files", Prefix: "files/w/r1/", MaxKeys: 2 }));
    expect([first.KeyCount, first.IsTruncated]).toEqual([2, true]);
    const rest = await client.send(
      new ListObjectsV2Command({
        Bucket: "files",
        Prefix: "files/w/r1/",
        ContinuationToken: first.NextContinuationToken,
      }),
    );
    expect(rest.Contents?.map((c) => c.Key)).toEqual(["files/w/r1/b.xml"]);
  });

  it("answers what it does not do as S3 does, and an existing bucket as already owned", async () => {
    const client = await start();
    await client.send(new CreateBucketCommand({ Bucket: "files" }));
    await expect(client.send(new CreateBucketCommand({ Bucket: "files" }))).rejects.toMatchObject({
      name: "BucketAlreadyOwnedByYou",
    });
    await expect(client.send(new GetBucketAclCommand({ Bucket: "files" }))).rejects.toMatchObject({
      $metadata: { httpStatusCode: 501 },
    });
    await expect(put(client, "missing-bucket", "k", "x")).rejects.toMatchObject({ name: "NoSuchBucket" });
  });
});
