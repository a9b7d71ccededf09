import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPersistentS3Store } from "#infra/local/persistent-s3-store.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "platen-s3store-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("fauxqs' S3 store written through to disk", () => {
  it("keeps objects, content types and metadata across a restart (one file per object, no temporary left)", async () => {
    const first = await createPersistentS3Store(dir);
    first.createBucket("files");
    first.putObject("files", "ws/req/a.pdf", Buffer.from("%PDF-1.4 one"), "application/pdf", { pages: "1" });
    first.putObject("files", "ws/req/a.pdf", Buffer.from("%PDF-1.4 two"), "application/pdf", { pages: "2" });
    expect(readdirSync(join(dir, "files"))).toEqual([`${encodeURIComponent("ws/req/a.pdf")}@object`]);

    const again = await createPersistentS3Store(dir);
    const obj = again.getObject("files", "ws/req/a.pdf");
    expect(obj.body.toString()).toBe("%PDF-1.4 two");
    expect(obj).toMatchObject({ contentType: "application/pdf", metadata: { pages: "2" } });
  });

  it("reads objects an earlier version wrote (bytes + .meta.json) and replaces them on the next put", async () => {
    mkdirSync(join(dir, "designs"));
    writeFileSync(join(dir, "designs", "k%2Fold.json"), '{"v":1}');
    writeFileSync(
      join(dir, "designs", "k%2Fold.json.meta.json"),
      JSON.stringify({ contentType: "application/json", metadata: {} }),
    );
    const store = await createPersistentS3Store(dir);
    expect(store.getObject("designs", "k/old.json")).toMatchObject({ contentType: "application/json" });
    expect(store.getObject("designs", "k/old.json").body.toString()).toBe('{"v":1}');

    store.putObject("designs", "k/old.json", Buffer.from('{"v":2}'), "application/json");
    expect(readdirSync(join(dir, "designs"))).toEqual(["k%2Fold.json@object"]);
    expect((await createPersistentS3Store(dir)).getObject("designs", "k/old.json").body.toString()).toBe('{"v":2}');
  });

  it("a crash between writing an object and removing its old-format files: the new one wins", async () => {
    mkdirSync(join(dir, "files"));
    writeFileSync(join(dir, "files", "k"), "old bytes");
    writeFileSync(
      join(dir, "files", "k@object"),
      `${JSON.stringify({ contentType: "application/pdf", metadata: {} })}\nnew bytes`,
    );
    expect((await createPersistentS3Store(dir)).getObject("files", "k").body.toString()).toBe("new bytes");
  });

  it("keeps keys '.' and '..' inside their bucket, and survives a malformed head line", async () => {
    const store = await createPersistentS3Store(dir);
    store.createBucket("files");
    store.putObject("files", ".", Buffer.from("dot"));
    store.putObject("files", "..", Buffer.from("dotdot"));
    expect(readdirSync(join(dir, "files")).sort()).toEqual(["..@object", ".@object"].sort());
    writeFileSync(join(dir, "files", "bad@object"), "null\nbytes");
    const again = await createPersistentS3Store(dir);
    expect(again.getObject("files", "..").body.toString()).toBe("dotdot");
    expect(again.getObject("files", "bad").body.toString()).toBe("bytes");
  });

  it("deletes every file of an object", async () => {
    const store = await createPersistentS3Store(dir);
    store.createBucket("files");
    store.putObject("files", "x", Buffer.from("bytes"));
    store.deleteObject("files", "x");
    expect(readdirSync(join(dir, "files"))).toEqual([]);
    const again = await createPersistentS3Store(dir);
    expect(() => again.getObject("files", "x")).toThrow(expect.objectContaining({ code: "NoSuchKey" }));
  });
});
