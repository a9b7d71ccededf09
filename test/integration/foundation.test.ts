import { execFile } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "#shared/clock.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { createWorkspace } from "#shared/workspaces/workspace-store.ts";
import { api, type RunningStack, removeDataDir, startStack } from "../helpers/local-stack.ts";
import { authOrigin } from "../helpers/oauth-http.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { adminCliArgs } from "../helpers/local-build.ts";

const run = promisify(execFile);
let stack: RunningStack;
let demo: RunningStack["localJson"]["workspaces"][number];
let second: RunningStack["localJson"]["workspaces"][number];

beforeAll(async () => {
  stack = await startStack();
  [demo, second] = stack.localJson.workspaces as [typeof demo, typeof second];
});
afterAll(async () => {
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

const invoiceOf = (ws: typeof demo) => ws.designs.find((d) => d.label.includes("請求書"))!;

describe("seed and local.json", () => {
  it("has two workspaces with keys and the five samples each", () => {
    expect(stack.localJson.apiBaseUrl).toBe(`http://localhost:${stack.port}/v1`);
    expect(stack.localJson.workspaces.map((w) => [w.name, w.plan])).toEqual([
      ["Demo", "standard"],
      ["Second", "free"],
    ]);
    for (const ws of stack.localJson.workspaces) {
      expect(ws.id).toMatch(/^[0-9A-Za-z]{16}$/);
      expect(ws.appKey).toMatch(/^plt_/);
      expect(ws.designs).toHaveLength(5);
      expect(ws.designs.every((d) => d.latestVersion === 1)).toBe(true);
    }
    expect(stack.output()).toContain("local.json");
  });

  // The auth host's public gallery (shared/identity/README.md#auth_url) as the seed leaves it: only a stack of
  // the file's own has it so (on a shared stack, other files share templates).
  it("GET /public/templates needs no authentication and answers a list (the seeded samples)", async () => {
    const res = await fetch(`${authOrigin(stack)}/public/templates`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { templates: { label: string }[]; next?: number };
    expect(body.templates.map((t) => t.label).sort()).toEqual(
      [
        "Certificate of Completion (A4 landscape)",
        "Invoice with Factur-X (EU, A4)",
        "Shipping label (4 × 6 in)",
        "請求書（適格請求書・A4縦）",
        "電子インボイス（Factur-X・円・A4縦）",
      ].sort(),
    );
    expect(body.next).toBeUndefined();
  });
});

describe("authentication (see README.md#authentication)", () => {
  it("answers 412 without any credentials header, with the error body (README.md#errors)", async () => {
    const res = await api(stack)("/file/designs");
    expect(res.status).toBe(412);
    const body = await res.json();
    expect(body).toMatchObject({
      statusCode: 412,
      code: "AUTH_HEADER_MISSING",
      error: "Precondition Failed",
      details: [],
    });
    expect(body.docsUrl).toMatch(/#auth_header_missing$/);
    expect(res.headers.get("content-language")).toBe("en");
  });
  it("answers 412 for a malformed appkey and 401 for a wrong one", async () => {
    expect((await api(stack, "nonsense")("/file/designs")).status).toBe(412);
    const wrong = await api(stack, `plt_${"A".repeat(40)}`)("/file/designs");
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).code).toBe("INVALID_CREDENTIALS");
    // RFC 9110 §15.5.2: a 401 names a scheme the resource accepts (appkey has no registered scheme).
    expect(wrong.headers.get("www-authenticate")).toBe('Bearer realm="platen"');
  });
  it("answers 401 for a workspace header mismatch and for a bearer token that is not ours", async () => {
    const mismatch = await api(stack, demo.appKey)("/file/designs", { headers: { "x-workspace-id": second.id } });
    expect(mismatch.status).toBe(401);
    const match = await api(stack, demo.appKey)("/file/designs", { headers: { "x-workspace-id": demo.id } });
    expect(match.status).toBe(200);
    const bearer = await api(stack)("/file/designs", { headers: { authorization: "Bearer abc" } });
    expect(bearer.status).toBe(401);
  });
  it("speaks Japanese when ja is the highest-priority language", async () => {
    const res = await api(stack)("/file/designs", { headers: { "accept-language": "en;q=0.5, ja-JP" } });
    const body = await res.json();
    expect(res.headers.get("content-language")).toBe("ja");
    expect(body.message).toContain("認証ヘッダー");
    expect(body.docsUrl).toContain("/ja/docs/errors#auth_header_missing");
  });
});

describe("health and routing", () => {
  it("serves the health check without auth", async () => {
    const res = await api(stack)("/health/check");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
  });
  it("answers unknown routes with JSON 404 and wrong methods with 405, in the error body (README.md#errors) and the caller's language", async () => {
    const unknown = await api(stack)("/nope", { headers: { "accept-language": "ja" } });
    expect([unknown.status, unknown.headers.get("content-language")]).toEqual([404, "ja"]);
    expect(await unknown.json()).toEqual({
      statusCode: 404,
      code: "NOT_FOUND",
      message: "該当するルートがありません。",
      error: "Not Found",
      details: [],
      docsUrl: expect.stringMatching(/\/ja\/docs\/errors#not_found$/),
    });
    const wrong = await api(stack, demo.appKey)("/file/designs", { method: "POST" });
    expect([wrong.status, wrong.headers.get("allow")]).toEqual([405, "GET, OPTIONS"]);
    expect(await wrong.json()).toMatchObject({
      statusCode: 405,
      code: "METHOD_NOT_ALLOWED",
      error: "Method Not Allowed",
      details: [],
      docsUrl: expect.stringMatching(/\/docs\/errors#method_not_allowed$/),
    });
  });
  it("answers CORS preflights and exposes the spec's headers (see infra/README.md#cross-origin-access)", async () => {
    const res = await api(stack)("/file/sync/single", { method: "OPTIONS" });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const allowed = res.headers.get("access-control-allow-headers")!;
    for (const h of ["Idempotency-Key", "appkey", "SecretKey", "Authorization", "Accept-Language", "X-Request-ID"]) {
      expect(allowed).toContain(h);
    }
    const exposed = (await api(stack, demo.appKey)("/file/designs")).headers.get("access-control-expose-headers")!;
    for (const h of [
      "Content-Disposition",
      "File-URL",
      "File-ID",
      "Request-Id",
      "X-File-Mapping",
      "Retry-After",
      "X-Page-Count",
    ]) {
      expect(exposed).toContain(h);
    }
  });
});

describe("design parameters (OpenAPI getDesignParameters)", () => {
  it("returns the schema with non-ASCII names exactly as authored", async () => {
    const res = await api(stack, demo.appKey)(`/file/design/parameter/${invoiceOf(demo).id}`);
    expect(res.status).toBe(200);
    const schema = (await res.json()) as { name: string; type: string; spec?: { name: string }[] }[];
    const names = schema.map((p) => p.name);
    expect(names).toContain("請求先");
    const items = schema.find((p) => p.name === "明細")!;
    expect(items.type).toBe("array");
    expect(items.spec!.map((c) => c.name)).toEqual(expect.arrayContaining(["品名", "数量", "単価", "税率"]));
    expect(JSON.stringify(schema)).not.toContain('"default"');
  });
  it("distinguishes DESIGN_NOT_FOUND and DESIGN_VERSION_NOT_FOUND and never answers 400", async () => {
    const get = api(stack, demo.appKey);
    const id = invoiceOf(demo).id;
    expect((await (await get(`/file/design/parameter/${id}?version=1`)).json()).length).toBeGreaterThan(0);
    const cases: [string, number, string][] = [
      ["/file/design/parameter/AAAAAAAAAAAAAAAA", 404, "DESIGN_NOT_FOUND"],
      ["/file/design/parameter/not-even-an-id", 404, "DESIGN_NOT_FOUND"],
      ["/file/design/parameter/AAAAAAAAAAAAAAAA?version=1", 404, "DESIGN_VERSION_NOT_FOUND"],
      [`/file/design/parameter/${id}?version=9`, 404, "DESIGN_VERSION_NOT_FOUND"],
      [`/file/design/parameter/${id}?version=abc`, 404, "DESIGN_VERSION_NOT_FOUND"],
    ];
    for (const [path, status, code] of cases) {
      const res = await get(path);
      expect([path, res.status, (await res.json()).code]).toEqual([path, status, code]);
    }
  });
  it("hides another workspace's design (tenant isolation)", async () => {
    const other = invoiceOf(second).id;
    const res = await api(stack, demo.appKey)(`/file/design/parameter/${other}`);
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe("DESIGN_NOT_FOUND");
    const thumb = await api(stack, demo.appKey)(`/file/designs/${other}/thumbnail`);
    expect(thumb.status).toBe(404);
  });
});

describe("design list (OpenAPI listDesigns)", () => {
  it("lists the workspace's designs with thumbnails that serve a PNG", async () => {
    const res = await api(stack, demo.appKey)("/file/designs");
    const body = await res.json();
    expect(body).toMatchObject({ total: 5, page: 1, pageSize: 30, totalPages: 1 });
    expect(body.designs.map((d: { id: string }) => d.id).sort()).toEqual(demo.designs.map((d) => d.id).sort());
    const thumb = await fetch(body.designs[0].thumbnail.replace("localhost", "127.0.0.1"), {
      headers: { appkey: demo.appKey },
    });
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/png");
    expect(
      Buffer.from(await thumb.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
  });
  it("rejects a page below 1 or not an integer with 400", async () => {
    for (const page of ["0", "-1", "abc", "1.5", ""]) {
      const res = await api(stack, demo.appKey)(`/file/designs?page=${page}`);
      expect([page, res.status]).toEqual([page, 400]);
      expect((await res.json()).details[0].field).toBe("page");
    }
  });
  it("pages through more than 30 designs", async () => {
    useStackEmulators(stack.dataDir);
    const { workspace, appKey } = await createWorkspace({ name: "Many", plan: "standard" }, systemClock);
    const bundle = await loadBundleFromDir("shared/designs/samples/shipping-label");
    for (let i = 0; i < 35; i++) {
      await publishDesign(
        { workspaceId: workspace.id, bundle: { ...bundle, manifest: { ...bundle.manifest, label: `Label ${i}` } } },
        { clock: systemClock },
      );
    }
    const page1 = await (await api(stack, appKey)("/file/designs")).json();
    const page2 = await (await api(stack, appKey)("/file/designs?page=2")).json();
    const page3 = await (await api(stack, appKey)("/file/designs?page=3")).json();
    expect([page1.total, page1.totalPages, page1.designs.length, page2.designs.length, page3.designs.length]).toEqual([
      35, 2, 30, 5, 0,
    ]);
    const ids = new Set([...page1.designs, ...page2.designs].map((d: { id: string }) => d.id));
    expect(ids.size).toBe(35);
  });
});

describe("admin CLI", () => {
  const admin = async (...args: string[]) =>
    run(process.execPath, await adminCliArgs(...args), {
      env: { ...process.env, PLATEN_DATA_DIR: stack.dataDir },
    });

  it("creates a workspace whose key authenticates", async () => {
    const { stdout } = await admin("workspace", "create", "--name", "CLI Co", "--plan", "personal", "--json");
    const created = JSON.parse(stdout);
    expect(created).toMatchObject({ name: "CLI Co", plan: "personal" });
    const res = await api(stack, created.appKey)("/file/designs");
    expect(await res.json()).toMatchObject({ total: 0 });
  });
  it("publishes a new version of an existing design and lists it", async () => {
    const { stdout } = await admin(
      "design",
      "publish",
      "shared/designs/samples/invoice-ja",
      "--workspace",
      demo.id,
      "--json",
    );
    expect(JSON.parse(stdout)).toMatchObject({ id: invoiceOf(demo).id, version: 2 });
    const list = JSON.parse((await admin("design", "list", "--workspace", demo.id, "--json")).stdout);
    expect(list.find((d: { id: string }) => d.id === invoiceOf(demo).id).latestVersion).toBe(2);
  });
  it("fails with one line and no stack trace on bad input", async () => {
    const bad = join(stack.dataDir, "bad-design");
    mkdirSync(bad, { recursive: true });
    writeFileSync(
      join(bad, "design.json"),
      JSON.stringify({ label: "x", parameters: [{ name: "a", type: "nope", label: "A" }] }),
    );
    const cases = [
      ["design", "publish", "/definitely/missing", "--workspace", demo.id],
      ["design", "publish", bad, "--workspace", demo.id],
      ["design", "list", "--workspace", "AAAAAAAAAAAAAAAA"],
      ["workspace", "create", "--name", "x", "--plan", "gold"],
    ];
    for (const args of cases) {
      const err = await admin(...args).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(err?.code).toBe(1);
      expect(err!.stderr.trim().split("\n")).toHaveLength(1);
      expect(err!.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe("the SDK's S3 client", () => {
  it("sends each of many concurrent GETs to its own bucket (the render worker reads a design bundle and params at once)", async () => {
    useStackEmulators(stack.dataDir);
    const { s3: s3Client } = await import("#shared/aws/clients.ts");
    const { config } = await import("#shared/aws/config.ts");
    const { GetObjectCommand, PutObjectCommand } = await import("@aws-sdk/client-s3");
    const { client: s3 } = await s3Client();
    const { designs, files } = config().buckets;
    // The same key in both buckets, different bytes: a GET sent to the other bucket reads the other's.
    const key = `concurrency/${Date.now()}.txt`;
    await s3.send(new PutObjectCommand({ Bucket: designs, Key: key, Body: "designs" }));
    await s3.send(new PutObjectCommand({ Bucket: files, Key: key, Body: "files" }));
    const read = async (Bucket: string) =>
      (await s3.send(new GetObjectCommand({ Bucket, Key: key }))).Body!.transformToString();
    const buckets = Array.from({ length: 40 }, (_, i) => (i % 2 ? designs : files));
    const bodies = await Promise.all(buckets.map(read));
    expect(bodies).toEqual(buckets.map((b) => (b === designs ? "designs" : "files")));
  });
});

describe("the SDK's SQS client", () => {
  it("sends each of many concurrent messages to its own queue", async () => {
    useStackEmulators(stack.dataDir);
    const { sqs: sqsClient } = await import("#shared/aws/clients.ts");
    const { CreateQueueCommand, ReceiveMessageCommand, SendMessageCommand } = await import("@aws-sdk/client-sqs");
    const { client: sqs } = await sqsClient();
    const urls = await Promise.all(
      ["a", "b"].map(
        async (n) =>
          (await sqs.send(new CreateQueueCommand({ QueueName: `concurrency-${n}-${Date.now()}` }))).QueueUrl!,
      ),
    );
    const targets = Array.from({ length: 20 }, (_, i) => urls[i % 2]!);
    await Promise.all(targets.map((QueueUrl) => sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: QueueUrl }))));
    for (const QueueUrl of urls) {
      const bodies: string[] = [];
      while (bodies.length < 10) {
        const out = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }),
        );
        if (!out.Messages?.length) break;
        bodies.push(...out.Messages.map((m) => m.Body!));
      }
      expect(bodies).toEqual(Array(10).fill(QueueUrl));
    }
  });
});
