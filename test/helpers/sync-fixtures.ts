import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { systemClock } from "#shared/clock.ts";
import { designManifestSchema, type RecordSpec } from "#shared/designs/bundle-schema.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { createWorkspace, type Plan } from "#shared/workspaces/workspace-store.ts";
import type { RunningStack } from "./local-stack.ts";
import { useStackEmulators } from "./stack-clients.ts";

const samplesDir = resolve(import.meta.dirname, "../../shared/designs/samples");

export type SampleName = "invoice-ja" | "certificate-en" | "shipping-label";

export const sampleDir = (name: SampleName) => join(samplesDir, name);

/** A fresh copy of a sample design's `sampleParams`. */
export function sampleParams(name: SampleName): Record<string, unknown> {
  const manifest = JSON.parse(readFileSync(join(sampleDir(name), "design.json"), "utf8")) as {
    sampleParams: Record<string, unknown>;
  };
  return structuredClone(manifest.sampleParams);
}

/** The label of a sample design (what the ZIP name of OpenAPI generateSyncMultiple is built from). */
export function sampleLabel(name: SampleName): string {
  return (JSON.parse(readFileSync(join(sampleDir(name), "design.json"), "utf8")) as { label: string }).label;
}

export interface TestDesignSource {
  label: string;
  /** The page size (default A4). */
  pageSize?: "A4" | "A5";
  parameters: { name: string; type: string; label: string; default?: boolean }[];
  template: string;
  css?: string;
  /** design.json `record`: a record design (shared/records/README.md#designjson-record). */
  record?: RecordSpec;
  /** The manifest's `sampleParams` (what the publish-time thumbnail renders). */
  sampleParams?: Record<string, unknown>;
}

/** Writes a design bundle folder (design.json checked against the bundle schema first). */
export function writeDesignFolder(root: string, name: string, source: TestDesignSource): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const manifest = {
    label: source.label,
    page: { size: source.pageSize ?? "A4" },
    parameters: source.parameters,
    ...(source.sampleParams && { sampleParams: source.sampleParams }),
    ...(source.record && { record: source.record }),
  };
  designManifestSchema.parse(manifest);
  writeFileSync(join(dir, "design.json"), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, "template.liquid"), source.template);
  writeFileSync(join(dir, "style.css"), source.css ?? "");
  return dir;
}

/** Publishes a bundle folder straight into the running stack's emulators. */
export async function publishFolder(
  stack: RunningStack,
  workspaceId: string,
  dir: string,
): Promise<{ id: string; version: number }> {
  useStackEmulators(stack.dataDir);
  const published = await publishDesign(
    { workspaceId, bundle: await loadBundleFromDir(dir), matchLabel: true },
    { clock: systemClock },
  );
  return { id: published.id, version: published.version };
}

export interface Tenant {
  workspaceId: string;
  appKey: string;
  /** The invoice sample, version 1. */
  invoiceId: string;
}

/**
 * A fresh standard-plan workspace with the invoice sample published. Tests that send
 * many requests spread them over tenants so a per-workspace rate limit (shared/limits/README.md#rate-limits:
 * 30/min for sync) cannot turn a validation test into a 429.
 */
export async function createTenant(stack: RunningStack, name: string): Promise<Tenant> {
  useStackEmulators(stack.dataDir);
  const { workspace, appKey } = await createWorkspace({ name, plan: "standard" }, systemClock);
  const invoice = await publishFolder(stack, workspace.id, sampleDir("invoice-ja"));
  return { workspaceId: workspace.id, appKey, invoiceId: invoice.id };
}

/**
 * A fresh workspace shaped like a seeded one of local.json: every sample design published
 * (version 1, without the seed's thumbnails). For a file on a shared stack, whose seeded
 * workspaces earlier files may have used.
 */
export async function createSeededLike(
  stack: RunningStack,
  name: string,
  plan: Plan = "standard",
): Promise<RunningStack["localJson"]["workspaces"][number]> {
  useStackEmulators(stack.dataDir);
  const { workspace, appKey } = await createWorkspace({ name, plan }, systemClock);
  const designs = [];
  for (const folder of readdirSync(samplesDir).sort()) {
    const published = await publishDesign(
      { workspaceId: workspace.id, bundle: await loadBundleFromDir(join(samplesDir, folder)) },
      { clock: systemClock },
    );
    designs.push({ id: published.id, label: published.label, latestVersion: published.version });
  }
  return { id: workspace.id, name, plan, appKey, designs };
}

export interface ProbeServer {
  port: number;
  /** Paths of every request received so far. */
  hits: string[];
  close(): Promise<void>;
}

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/**
 * An HTTP server on 127.0.0.1 (free port) that records every request: the SSRF canary.
 * It answers like a real origin (an image, a stylesheet) so a leak would not fail quietly.
 */
export async function startProbeServer(): Promise<ProbeServer> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    if ((req.url ?? "").includes("css") || (req.url ?? "").includes("imp")) {
      res.writeHead(200, { "content-type": "text/css" }).end("body{color:red}");
    } else {
      res.writeHead(200, { "content-type": "image/png" }).end(PNG_1X1);
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/**
 * A template that tries every way a page can reach the network or the disk: elements,
 * CSS (inline, @import, background, @font-face), srcdoc frames, scripts, a meta refresh,
 * and two params (`url_param`, `file_param`) rendered into img and iframe sources.
 * Without request interception each http vector hits the canary on `port`.
 */
export function ssrfProbeDesign(port: number): TestDesignSource {
  const canary = `http://127.0.0.1:${port}`;
  return {
    label: "TEST SSRF probe",
    parameters: [
      { name: "url_param", type: "text", label: "URL" },
      { name: "file_param", type: "text", label: "File URL" },
    ],
    template: [
      "<h1>SSRF-PROBE-RENDERED</h1>",
      `<img src="${canary}/img">`,
      `<link rel=stylesheet href="${canary}/css">`,
      `<iframe src="file:///etc/passwd"></iframe>`,
      `<img src="file:///etc/passwd">`,
      `<img src="http://169.254.169.254/latest/meta-data/">`,
      `<div style="background:url(${canary}/inline-bg);width:20px;height:20px"></div>`,
      `<div class="bg">bg</div>`,
      `<img src="{{ url_param }}"><img src="{{ file_param }}">`,
      `<iframe src="{{ url_param }}"></iframe><iframe src="{{ file_param }}"></iframe>`,
      `<object data="file:///etc/passwd" type="text/plain"></object>`,
      `<embed src="${canary}/embed">`,
      `<video poster="${canary}/poster"></video><audio src="${canary}/audio" preload="auto"></audio>`,
      `<img srcset="${canary}/srcset 1x">`,
      `<svg width="20" height="20"><image href="${canary}/svg-image" width="20" height="20"/></svg>`,
      `<link rel="preload" as="image" href="${canary}/preload"><link rel="prefetch" href="${canary}/prefetch">`,
      `<link rel="icon" href="${canary}/icon">`,
      `<img src="http://localhost:${port}/localhost-img">`,
      `<iframe srcdoc="<img src='${canary}/srcdoc'>"></iframe>`,
      `<script>fetch('${canary}/script')</script><script src="${canary}/script-src"></script>`,
      `<style>@font-face{font-family:probe;src:url(${canary}/font)} .f{font-family:probe}</style><p class="f">font</p>`,
      `<meta http-equiv="refresh" content="0;url=${canary}/refresh">`,
    ].join("\n"),
    css: `@import url(${canary}/imp);\n.bg { background: url(${canary}/bg); }\n`,
  };
}

/** A template whose scripts, event handlers and javascript: URL would print PWNED if they ran. */
export const scriptProbeDesign: TestDesignSource = {
  label: "TEST script probe",
  parameters: [{ name: "note", type: "text", label: "Note" }],
  template: [
    "<p>SAFE-MARKER</p>",
    "<script>document.body.innerHTML='PWNED'</script>",
    `<img src="missing.png" onerror="document.body.innerHTML='PWNED-ONERROR'">`,
    `<svg onload="document.body.innerHTML='PWNED-SVG'"></svg>`,
    `<iframe src="javascript:parent.document.body.innerHTML='PWNED-JSURL'"></iframe>`,
    "<p>{{ note }}</p>",
  ].join("\n"),
};
