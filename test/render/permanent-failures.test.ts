import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { permanentFileFailure } from "#shared/generation/requests/index.ts";
import { createRenderer, RenderError, type Renderer } from "#shared/render/renderer.ts";
import { makeBundle } from "./render-fixtures.ts";

/**
 * Render failures a retry cannot change fail a queued file at once (`permanentFileFailure`), with the real
 * renderer: a template error, a filter refusing its params, and data that cannot be written into the PDF.
 * (Generation requests refuse ill-formed text at validation now; a file queued before that rule still
 * reaches the renderer with it.)
 */

let renderer: Renderer;

beforeAll(() => {
  renderer = createRenderer({ browsers: 1, timeoutMs: 20_000 });
});
afterAll(async () => {
  await renderer.close();
});

async function failureOf(
  template: string,
  extra: { params?: Record<string, unknown>; passthrough?: Record<string, unknown>; title?: string } = {},
) {
  try {
    await renderer.renderPdf({
      bundle: makeBundle(template),
      bundleKey: `t-${template.length}-${Math.random()}`,
      params: extra.params ?? {},
      title: extra.title ?? "doc",
      passthrough: extra.passthrough,
    });
  } catch (err) {
    return err;
  }
  throw new Error("rendered although it should have failed");
}

describe("permanent render failures", () => {
  it("a passthrough value with a lone surrogate: permanent, the file fails at once", async () => {
    const err = await failureOf("<p>ok</p>", { passthrough: { orderId: "x\ud800y" } });
    expect(err).toBeInstanceOf(RenderError);
    expect((err as RenderError).permanent).toBe(true);
    expect(permanentFileFailure(err)).toEqual({ errorCode: "VALIDATION_FAILED", errorMessage: expect.any(String) });
  });

  it("a passthrough key with a lone surrogate: permanent", async () => {
    const err = await failureOf("<p>ok</p>", { passthrough: { "k\udfff": "v" } });
    expect(permanentFileFailure(err)).toMatchObject({ errorCode: "VALIDATION_FAILED" });
  });

  it("a template error and a filter refusing its params: permanent", async () => {
    expect(permanentFileFailure(await failureOf("{% if %}"))).toMatchObject({ errorCode: "TEMPLATE_FAILED" });
    const filter = await failureOf("<p>{{ n | registration_number }}</p>", { params: { n: "T1234567890120" } });
    expect(permanentFileFailure(filter)).toBeDefined();
  });
});
