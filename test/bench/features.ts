import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { DesignBundle } from "#shared/designs/bundle-schema.ts";
import { RENDER_CHANNEL, type RenderEvent } from "#shared/render/render-events.ts";
import { createRenderer, type RenderRequest } from "#shared/render/renderer.ts";
import { baseInvoice } from "../helpers/einvoice-model-fixtures.ts";
import { percentile } from "./stats.ts";

/**
 * What each optional document feature costs on the 1-page invoice, rendered by the service's
 * own renderer in this process (one browser, c=1): the plain design, the same with a QR code
 * and a Code 128 symbol, the same tagged with an outline (design.json `pdf`), and the plain one
 * password-protected (a content item's `protection`: AES-256, revision 6, permissions withheld), and the
 * plain one as PDF/A-2b (shared/render/README.md#pdfa-and-embedded-files), and as a Factur-X e-invoice: the
 * mapping, the EN 16931 rules, the CII XML and the PDF/A-3b that embeds it (shared/einvoice/README.md).
 * One line per variant: p50 / p95 ms and the PDF's size; the cost is against the plain one. Then the
 * browser's periodic collections during the phase (BrowserPool `gcEvery`): how many, p50 and slowest
 * (measured here, not bounded in a test, where a busy machine would break a time limit).
 * The sample invoice prints a QR code of its own view: "plain" is the invoice without it, so every
 * feature, barcodes included, is measured against a document that uses none.
 */
export async function runFeaturePhase(
  sample: DesignBundle,
  params: Record<string, unknown>,
  renders: number,
): Promise<string[]> {
  const bundle = withoutBarcodes(sample);
  const withBarcodes: DesignBundle = {
    ...bundle,
    template: `${bundle.template}\n<p>{{ "https://platen.example/file/AbCdEfGhIjKlMnOp/QrStUvWxYz012345" | barcode: "qrcode" }}{{ 請求番号 | barcode: "code128" }}</p>`,
  };
  const tagged: DesignBundle = { ...bundle, manifest: { ...bundle.manifest, pdf: { tagged: true, outline: true } } };
  const protection: RenderRequest["protection"] = {
    password: "bench-パスワード",
    allowPrinting: false,
    allowCopying: false,
    allowModifying: false,
  };
  const pdfA2b: DesignBundle = {
    ...bundle,
    manifest: { ...bundle.manifest, pdf: { ...bundle.manifest.pdf, standard: "PDF/A-2b" } },
  };
  // A real e-invoice: the mapping renders the model sent as `invoice`, checked against the rules, written as
  // CII and embedded in a PDF/A-3b (shared/einvoice/README.md): everything Factur-X costs a document.
  const facturX: DesignBundle = {
    ...bundle,
    manifest: { ...bundle.manifest, einvoice: { format: "factur-x", data: "einvoice.liquid" } },
    einvoiceMapping: "{{ invoice | json }}",
  };
  const variants: [string, DesignBundle, Partial<RenderRequest>?][] = [
    ["plain", bundle],
    ["+ QR code and Code 128 (barcode filter)", withBarcodes],
    ["tagged + outline", tagged],
    ["password-protected (AES-256 R6)", bundle, { protection }],
    ["PDF/A-2b (design.json pdf.standard)", pdfA2b],
    ["Factur-X (mapping, EN 16931 rules, CII, PDF/A-3b)", facturX, { params: { ...params, invoice: baseInvoice() } }],
  ];
  const renderer = createRenderer({ browsers: 1 });
  const results: { label: string; p50: number; p95: number; kb: number }[] = [];
  let plainPdf: Buffer | undefined;
  const collections: number[] = [];
  const onEvent = (message: unknown) => {
    const event = message as RenderEvent;
    if (event.event === "garbage-collected") collections.push(event.ms);
  };
  subscribe(RENDER_CHANNEL, onEvent);
  try {
    for (const [label, variant, extra] of variants) {
      const key = `features-${label}`;
      const req = { bundle: variant, bundleKey: key, params, title: "bench", ...extra };
      for (let i = 0; i < 5; i++) await renderer.renderPdf(req);
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < renders; i++) {
        const started = performance.now();
        const { pdf } = await renderer.renderPdf(req);
        times.push(performance.now() - started);
        bytes = pdf.length;
        plainPdf ??= pdf;
      }
      results.push({ label, p50: percentile(times, 50), p95: percentile(times, 95), kb: bytes / 1024 });
    }
  } finally {
    unsubscribe(RENDER_CHANNEL, onEvent);
    await renderer.close();
  }
  const plain = results[0]!;
  const gc = collections.length
    ? `browser collections: ${collections.length}, p50 ${percentile(collections, 50).toFixed(1)} ms, slowest ${Math.max(...collections).toFixed(1)} ms`
    : "browser collections: none in this phase";
  const signing = plainPdf ? await signingCost(plainPdf, renders) : [];
  return [
    "| 1-page invoice, renderer c=1 | p50 ms | p95 ms | PDF KB | p50 cost | size cost |",
    "|---|---|---|---|---|---|",
    ...results.map(
      (r) =>
        `| ${r.label} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.kb.toFixed(1)} | ${r === plain ? "–" : `${(r.p50 - plain.p50).toFixed(1)} ms (${(((r.p50 - plain.p50) / plain.p50) * 100).toFixed(0)} %)`} | ${r === plain ? "–" : `${(((r.kb - plain.kb) / plain.kb) * 100).toFixed(0)} %`} |`,
    ),
    "",
    ...signing,
    gc,
  ];
}

/**
 * What signing adds to a generated document (shared/signing/README.md): `signPdf` on the plain invoice's
 * PDF, the step generation runs after the render. B-B: an RSA-2048 identity (the test keys, made by
 * openssl). B-T adds a time-stamp from a TSA on 127.0.0.1 (`openssl ts -reply`, test/helpers/test-tsa.ts),
 * reported apart: its round trip is the TSA's, not Platen's.
 */
async function signingCost(pdf: Buffer, runs: number): Promise<string[]> {
  const { createPrivateKey, X509Certificate } = await import("node:crypto");
  const { signPdf } = await import("#shared/signing/sign-pdf.ts");
  const { signingFixtures } = await import("../helpers/signing-fixtures.ts");
  const { startTestTsa } = await import("../helpers/test-tsa.ts");
  const f = await signingFixtures();
  const identity = {
    privateKey: createPrivateKey(f.rsa.keyPem),
    chain: [new X509Certificate(f.rsa.certPem), new X509Certificate(f.caPem)],
  };
  const tsa = await startTestTsa();
  const time = async (level: "B-B" | "B-T") => {
    const options = {
      identity,
      level,
      signingTime: new Date(),
      ...(level === "B-T" && { timestamp: { url: tsa.url, timeoutMs: 10_000 } }),
    };
    for (let i = 0; i < 5; i++) await signPdf(pdf, options);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      await signPdf(pdf, options);
      times.push(performance.now() - started);
    }
    return { p50: percentile(times, 50), p95: percentile(times, 95) };
  };
  try {
    const bb = await time("B-B");
    const bt = await time("B-T");
    return [
      `PAdES B-B signature after the render: +${bb.p50.toFixed(1)} ms p50 (p95 ${bb.p95.toFixed(1)}) (target ≤ 15 ms)`,
      `PAdES B-T: +${bt.p50.toFixed(1)} ms p50 (p95 ${bt.p95.toFixed(1)}), of which the round trip to a local openssl TSA ${(bt.p50 - bb.p50).toFixed(1)} ms`,
    ];
  } finally {
    await tsa.close();
  }
}

/** The invoice sample without its QR code block (the only barcode it prints). */
function withoutBarcodes(sample: DesignBundle): DesignBundle {
  const template = sample.template.replace(/<div class="online-copy">[\s\S]*?<\/div>/, "");
  if (/\|\s*barcode\b/.test(template)) throw new Error("the invoice sample prints a barcode the bench does not strip");
  return { ...sample, template };
}
