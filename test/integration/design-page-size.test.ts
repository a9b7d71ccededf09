import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorOf } from "../helpers/async-http.ts";
import { clientCredentialsToken, makeConfidentialClient } from "../helpers/identity-fixtures.ts";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";

/**
 * Custom page sizes are bounded: width and height from 1 cm to 5 m each, margins
 * that leave room on the page. Outside the bounds create and publish answer 422
 * DESIGN_BUNDLE_INVALID naming the field at once (`width: 1px, height: 99999in` answered 500
 * INTERNAL_ERROR after 29 s); inside them every page gets its thumbnail, and its page images (the
 * preview's PNG) are bounded images.
 */

let stack: SharedStack;
let tenant: Tenant;
let call: (method: string, path: string, body?: unknown) => Promise<Response>;

beforeAll(async () => {
  stack = await sharedStack();
  tenant = await createTenant(stack, "Page sizes");
  const client = await makeConfidentialClient(tenant.workspaceId, ["designs:read", "designs:write"]);
  const token = await clientCredentialsToken(stack, client, "designs:read designs:write");
  call = (method, path, body) =>
    fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
});

afterAll(() => stack?.release());

const NO_MARGIN = { top: "0mm", right: "0mm", bottom: "0mm", left: "0mm" };
const form = (label: string, page: Record<string, unknown>) => ({
  label,
  parameters: [],
  page,
  template: "<p style='margin:0'>{{ 'Hello' }}</p>",
});

/** Width and height of a PNG (its IHDR). */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

async function pngOf(res: Response): Promise<{ width: number; height: number }> {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/png");
  return pngSize(Buffer.from(await res.arrayBuffer()));
}

describe("custom page sizes", () => {
  it("refuses width 1px, height 99999in on create and publish at once: 422 DESIGN_BUNDLE_INVALID naming page.width and page.height", async () => {
    const page = { width: "1px", height: "99999in" };
    const start = performance.now();
    const create = await errorOf(await call("POST", "/designs", form("Too tall", page)));
    expect([create.status, create.body.code]).toEqual([422, "DESIGN_BUNDLE_INVALID"]);
    const fields = create.body.details.map((d) => (d as { field?: string }).field);
    expect(fields).toEqual(["page.width", "page.height"]);
    expect(create.body.details[1]).toMatchObject({
      file: "design.json",
      field: "page.height",
      message: "must be between 10mm and 5000mm (5 m)",
    });

    const created = await call("POST", "/designs", form("Fine", {}));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const publish = await errorOf(await call("POST", `/designs/${id}/versions`, form("Fine", page)));
    expect([publish.status, publish.body.code]).toEqual([422, "DESIGN_BUNDLE_INVALID"]);
    expect(publish.body.details.map((d) => (d as { field?: string }).field)).toContain("page.height");
    // Refused by the schema, not by a render that runs out of time.
    expect(performance.now() - start).toBeLessThan(10_000);
  });

  it("refuses margins that leave no room on the page, naming the margin", async () => {
    const res = await errorOf(await call("POST", "/designs", form("No room", { width: "10mm", height: "5000mm" })));
    expect([res.status, res.body.code]).toEqual([422, "DESIGN_BUNDLE_INVALID"]);
    expect(res.body.details).toEqual([
      expect.objectContaining({
        field: "page.margin.left",
        message: "the left and right margins (20mm together) leave no room on a page 10mm wide",
      }),
    ]);
  });

  it("publishes the largest page (5 m × 5 m) with its 400 × 400 thumbnail and preview page image", async () => {
    const created = await call("POST", "/designs", form("Largest", { width: "5000mm", height: "500cm" }));
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const thumbnail = await api(stack, tenant.appKey)(`/file/designs/${id}/thumbnail?version=1`);
    expect(await pngOf(thumbnail)).toEqual({ width: 400, height: 400 });
    const image = await call("POST", "/designs/preview?format=png&page=1", { designId: id, version: 1 });
    expect(await pngOf(image)).toEqual({ width: 1000, height: 1000 });
  });

  it("publishes the longest and widest pages; their thumbnails show the top left, their page images the whole page, bounded", async () => {
    const cases = [
      {
        page: { width: "10mm", height: "5000mm" },
        thumb: { width: 400, height: 1600 },
        image: { width: 16, height: 8000 },
      },
      {
        page: { width: "5000mm", height: "10mm" },
        thumb: { width: 400, height: 100 },
        image: { width: 1000, height: 2 },
      },
    ];
    for (const { page, thumb, image } of cases) {
      const created = await call(
        "POST",
        "/designs",
        form(`${page.width} × ${page.height}`, { ...page, margin: NO_MARGIN }),
      );
      expect(created.status).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect(await pngOf(await api(stack, tenant.appKey)(`/file/designs/${id}/thumbnail?version=1`))).toEqual(thumb);
      const preview = await call("POST", "/designs/preview?format=png&page=1", { designId: id, version: 1 });
      expect(await pngOf(preview)).toEqual(image);
    }
  });
});
