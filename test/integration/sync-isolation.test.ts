import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { compactPdfText } from "../helpers/pdf-inspect.ts";
import {
  createSeededLike,
  type ProbeServer,
  publishFolder,
  sampleParams,
  scriptProbeDesign,
  ssrfProbeDesign,
  startProbeServer,
  writeDesignFolder,
} from "../helpers/sync-fixtures.ts";
import { syncCaller } from "../helpers/sync-http.ts";

/**
 * The renderer behind sync generation treats designs and params as untrusted: no request
 * leaves Chromium (SSRF), no file is read, no script runs, and params are printed as
 * text. A real HTTP server on 127.0.0.1 is the canary. One local stack for the file.
 */

let stack: SharedStack;
let sync: ReturnType<typeof syncCaller>;
let tmp: string;
let probe: ProbeServer;
let invoiceId: string;
let ssrfDesign: { id: string; version: number };
let scriptDesign: { id: string; version: number };

beforeAll(async () => {
  stack = await sharedStack();
  const demo = await createSeededLike(stack, "Sync isolation");
  sync = syncCaller(stack, demo.appKey);
  invoiceId = demo.designs.find((d) => d.label.includes("請求書"))!.id;
  tmp = mkdtempSync(join(tmpdir(), "platen-sync-isolation-"));
  probe = await startProbeServer();
  ssrfDesign = await publishFolder(stack, demo.id, writeDesignFolder(tmp, "ssrf", ssrfProbeDesign(probe.port)));
  scriptDesign = await publishFolder(stack, demo.id, writeDesignFolder(tmp, "script", scriptProbeDesign));
});

afterAll(async () => {
  await probe?.close();
  await stack?.release();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const pdfTextOf = async (res: Response) => compactPdfText(new Uint8Array(await res.arrayBuffer()));

describe("renderer isolation (sync generation)", () => {
  it("loads nothing from the network or the disk (SSRF): the canary server sees zero requests", async () => {
    const canary = `http://127.0.0.1:${probe.port}`;
    // Control: the canary is reachable from this machine, so silence below means blocked.
    expect((await fetch(`${canary}/control`)).status).toBe(200);
    expect(probe.hits).toEqual(["/control"]);
    probe.hits.length = 0;
    for (const [url_param, file_param] of [
      [`${canary}/param`, "file:///etc/passwd"],
      ["file:///etc/passwd", `http://localhost:${probe.port}/param-localhost`],
    ]) {
      const res = await sync("single", {
        designId: ssrfDesign.id,
        version: ssrfDesign.version,
        content: { fileName: "ssrf", params: { url_param, file_param } },
      });
      expect(res.status).toBe(200);
      const text = await pdfTextOf(res);
      expect(text).toContain("SSRF-PROBE-RENDERED");
      expect(text).not.toContain("root:x:0:0");
    }
    const multi = await sync("multiple", {
      designId: ssrfDesign.id,
      version: ssrfDesign.version,
      contents: [{ fileName: "m1", params: { url_param: `${canary}/multi`, file_param: "file:///etc/shadow" } }],
    });
    expect(multi.status).toBe(200);
    await multi.arrayBuffer();
    await new Promise((r) => setTimeout(r, 300)); // anything late would still arrive
    expect(probe.hits).toEqual([]);
  });

  it("prints a <script> in a param value as text (escaped output)", async () => {
    const hostile = `<script>document.body.innerHTML='X'</script><b>太字</b><img src=x onerror=alert(1)>`;
    const res = await sync("single", {
      designId: invoiceId,
      version: 1,
      content: { fileName: "xss", params: { ...sampleParams("invoice-ja"), 請求先: hostile } },
    });
    expect(res.status).toBe(200);
    const text = await pdfTextOf(res);
    expect(text).toContain(hostile.replace(/\s+/g, ""));
    expect(text).toContain("請求書");
  });

  it("runs no JavaScript from a template (script, event handlers, javascript: URLs)", async () => {
    const res = await sync("single", {
      designId: scriptDesign.id,
      version: scriptDesign.version,
      content: { fileName: "script", params: { note: "<script>document.body.innerHTML='PWNED-PARAM'</script>" } },
    });
    expect(res.status).toBe(200);
    const text = await pdfTextOf(res);
    expect(text).toContain("SAFE-MARKER");
    expect(text).toContain("<script>document.body.innerHTML='PWNED-PARAM'</script>");
    expect(text.replace("PWNED-PARAM", "")).not.toContain("PWNED");
  });
});
