import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tables } from "#shared/definitions/index.ts";
import { localTableName } from "#infra/local/resource-names.ts";
import { acceptOrFail, pollStatus } from "../helpers/async-http.ts";
import { api, type RunningStack, removeDataDir, settled, startStack } from "../helpers/local-stack.ts";
import { opens, pdfInfo, pdfText, showEncryption } from "../helpers/pdf-tools.ts";
import { stackDocumentClient } from "../helpers/stack-clients.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";
import { allHeadersText, readErrorBody, syncCaller } from "../helpers/sync-http.ts";
import { registerEndpoint, webhookStackEnv } from "../helpers/webhook-fixtures.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

/**
 * `protection` and `metadata` over HTTP against the local stack: sync single, sync multiple and
 * async files are AES-256 (revision 6) PDFs that qpdf opens only with the password, with the
 * same pages and text as an unprotected one; and the password is nowhere but in the PDF's
 * key derivation — not in a stored record, the data folder, the logs, an answer's headers or
 * body, the status, or a webhook.
 */
let stack: RunningStack;
let receiver: WebhookReceiver;
let tenant: Tenant;

// Each password is unique to this suite, so finding it anywhere means it leaked.
const SYNC_PW = "同期-Pw-7f3a91";
const MULTI_PW = "複数-Pw-c02e44";
const ASYNC_PW = "非同期-Pw-5d8b1e";
const OWNER_PW = "owner-Pw-9e61aa";
const SECRETS = [SYNC_PW, MULTI_PW, ASYNC_PW, OWNER_PW];

beforeAll(async () => {
  stack = await startStack({ env: webhookStackEnv });
  receiver = await startWebhookReceiver();
  tenant = await createTenant(stack, "protect");
});

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  if (stack) removeDataDir(stack.dataDir);
});

const params = { 請求先: "株式会社プロテクト", 請求番号: "INV-P-1" };
const content = (fileName: string, protection?: Record<string, unknown>, metadata?: Record<string, unknown>) => ({
  fileName,
  params,
  ...(protection && { protection }),
  ...(metadata && { metadata }),
});

async function download(requestId: string, fileId: string): Promise<Buffer> {
  const res = await api(stack, tenant.appKey)(`/file/download/${requestId}/${fileId}`);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

function expectLocked(pdf: Buffer, password: string, plain: Buffer) {
  expect(showEncryption(pdf).R).toBe("6");
  expect(showEncryption(pdf)["file encryption method"]).toBe("AESv3");
  expect(opens(pdf)).toBe(false);
  expect(opens(pdf, password)).toBe(true);
  expect(pdfInfo(pdf, password).Pages).toBe(pdfInfo(plain).Pages);
  expect(pdfText(pdf, password)).toBe(pdfText(plain));
}

/** Every text a leak could hide in: it must contain none of the passwords. */
function expectNoSecret(where: string, text: string) {
  for (const secret of SECRETS) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
}

let plain: Buffer;

describe("password-protected PDFs", () => {
  it("sync single: the answer is encrypted; permissions as set; the stored copy is the same encrypted file", async () => {
    const call = syncCaller(stack, tenant.appKey);
    const unprotected = await call("single", { designId: tenant.invoiceId, version: 1, content: content("plain") });
    expect(unprotected.status).toBe(200);
    plain = Buffer.from(await unprotected.arrayBuffer());

    const res = await call("single", {
      designId: tenant.invoiceId,
      version: 1,
      content: content(
        "locked",
        { password: SYNC_PW, ownerPassword: OWNER_PW, allowPrinting: false, allowCopying: false },
        { author: "経理部", keywords: ["請求書", "protected"] },
      ),
    });
    expect(res.status).toBe(200);
    expectNoSecret("sync headers", allHeadersText(res));
    const pdf = Buffer.from(await res.arrayBuffer());
    expectLocked(pdf, SYNC_PW, plain);
    const enc = showEncryption(pdf, OWNER_PW);
    expect(enc["Supplied password is owner password"]).toBeDefined();
    expect(enc["print high resolution"]).toBe("not allowed");
    expect(enc["extract for any purpose"]).toBe("not allowed");
    expect(enc["modify other"]).toBe("allowed");
    expect(pdfInfo(pdf, SYNC_PW)).toMatchObject({ Title: "locked", Author: "経理部", Keywords: "請求書, protected" });

    await settled(stack);
    const requestId = res.headers.get("request-id")!;
    const [entry] = JSON.parse(decodeURIComponent(res.headers.get("x-file-mapping")!)) as { fileId: string }[];
    expect((await download(requestId, entry!.fileId)).equals(pdf)).toBe(true);
  });

  it("sync multiple: each file encrypted with its own password, one unprotected beside them", async () => {
    const res = await syncCaller(stack, tenant.appKey)(
      "multiple",
      {
        designId: tenant.invoiceId,
        version: 1,
        contents: [
          content("m-locked", { password: MULTI_PW }),
          content("m-open"),
          content("m-perm", { allowModifying: false }),
        ],
      },
      { query: "?response=json" },
    );
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expectNoSecret("sync multiple body", text);
    expectNoSecret("sync multiple headers", allHeadersText(res));
    const body = JSON.parse(text) as { requestId: string; files: { fileId: string }[] };
    await settled(stack);
    const [locked, open, perm] = await Promise.all(body.files.map((f) => download(body.requestId, f.fileId)));
    expectLocked(locked!, MULTI_PW, plain);
    expect(showEncryption(open!).R).toBeUndefined(); // not encrypted
    expect(opens(perm!)).toBe(true);
    expect(showEncryption(perm!)["modify other"]).toBe("not allowed");
  });

  it("async: rendered encrypted by the worker; the status and the webhook carry no password", async () => {
    const endpoint = await registerEndpoint(tenant.workspaceId, { url: receiver.url("/protect") });
    const accepted = await acceptOrFail(stack, tenant.appKey, "single", {
      designId: tenant.invoiceId,
      version: 1,
      webhookUrl: endpoint.url,
      content: content("a-locked", { password: ASYNC_PW, ownerPassword: OWNER_PW }, { title: "非同期の請求書" }),
    });
    expectNoSecret("202 body", JSON.stringify(accepted));
    const status = await pollStatus(stack, tenant.appKey, accepted.requestId);
    expect(status.body.status).toBe("completed");
    expectNoSecret("status", JSON.stringify(status.body));
    const [hook] = await receiver.waitFor("/protect", 1);
    expect(hook!.body.type ?? hook!.body.event).toBeDefined();
    expectNoSecret("webhook", hook!.rawBody.toString("utf8"));
    const pdf = await download(accepted.requestId, accepted.files[0]!.fileId);
    expectLocked(pdf, ASYNC_PW, plain);
    expect(pdfInfo(pdf, ASYNC_PW).Title).toBe("非同期の請求書");
  });

  it("no password in any stored record, the data folder or the stack's logs; the sealed value is gone once rendered", async () => {
    await settled(stack);
    const ddb = stackDocumentClient(stack.dataDir);
    try {
      for (const table of Object.values(tables)) {
        const items = (await ddb.send(new ScanCommand({ TableName: localTableName(table.id) }))).Items ?? [];
        expectNoSecret(`table ${table.id}`, JSON.stringify(items));
        if (table.id === tables.files.id) {
          // The scan does see this suite's files (a check that could not fail would prove nothing).
          expect(JSON.stringify(items)).toContain("a-locked");
          expect(items.filter((i) => i.sealedProtection !== undefined)).toEqual([]);
        }
      }
    } finally {
      ddb.destroy();
    }
    const walk = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const path = join(dir, name);
        return statSync(path).isDirectory() ? walk(path) : [path];
      });
    for (const file of walk(stack.dataDir)) expectNoSecret(file, readFileSync(file).toString("utf8"));
    expectNoSecret("stack output", stack.output());
  });

  it("refuses a bad protection with bilingual details that do not echo the password", async () => {
    const call = syncCaller(stack, tenant.appKey);
    for (const protection of [
      { password: "" },
      { password: "x".repeat(129) },
      { password: "１２３４" }, // full-width digits: not NFKC
      { password: "tab\there" },
      { password: "ok", allowPrinting: "yes" },
      { password: "ok", extra: true },
    ]) {
      const res = await call("single", { designId: tenant.invoiceId, version: 1, content: content("bad", protection) });
      expect(res.status, JSON.stringify(protection)).toBe(400);
      const body = await readErrorBody(res);
      expect(body.code).toBe("VALIDATION_FAILED");
      expect(JSON.stringify(body)).not.toContain("１２３４");
      expect(JSON.stringify(body)).not.toContain("tab\\there");
    }
    const ja = await call(
      "single",
      { designId: tenant.invoiceId, version: 1, content: content("bad", { password: "１２３４" }) },
      { headers: { "accept-language": "ja" } },
    );
    expect(JSON.stringify(await readErrorBody(ja))).toContain("NFKC 正規化");
  });
});
