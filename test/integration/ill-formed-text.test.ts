import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pagesUsedNow } from "../helpers/limits-stack.ts";
import { api } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { createTenant, type Tenant } from "../helpers/sync-fixtures.ts";

/**
 * Text that is not well-formed Unicode (a lone surrogate, as `JSON.parse` makes of `"\ud800"`) is refused by
 * all four generation routes alike at validation: 400 FILE_NAME_INVALID for a file name, VALIDATION_FAILED
 * anywhere else, the detail naming the field, and nothing rendered, stored or billed.
 */

let stack: SharedStack;
let tenant: Tenant;

beforeAll(async () => {
  stack = await sharedStack();
  tenant = await createTenant(stack, "ill-formed text");
});

afterAll(() => stack?.release());

const routes = [
  "/file/sync/single",
  "/file/sync/single?response=json",
  "/file/sync/multiple",
  "/file/async/single",
  "/file/async/multiple",
];

/** JSON.stringify writes a lone surrogate as a `\ud800` escape: the body on the wire is valid JSON. */
function post(route: string, content: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const item = { fileName: "fuzz", params: {}, ...content };
  const body = {
    designId: tenant.invoiceId,
    version: 1,
    ...(route.includes("single") ? { content: item } : { contents: [item] }),
    ...extra,
  };
  return api(stack, tenant.appKey)(route, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

const at = (route: string, field: string) => (route.includes("single") ? `content.${field}` : `contents.0.${field}`);

const cases: {
  name: string;
  content?: Record<string, unknown>;
  extra?: Record<string, unknown>;
  code: string;
  field: (r: string) => string;
}[] = [
  {
    name: "a file name",
    content: { fileName: "fuzz\ud800-file" },
    code: "FILE_NAME_INVALID",
    field: (r) => at(r, "fileName"),
  },
  {
    name: "a passthrough value",
    content: { passthrough: { orderId: "x\ud800y" } },
    code: "VALIDATION_FAILED",
    field: (r) => at(r, "passthrough.orderId"),
  },
  {
    name: "a passthrough key",
    content: { passthrough: { "k\udfff": "v" } },
    code: "VALIDATION_FAILED",
    field: (r) => at(r, "passthrough.k\ufffd"),
  },
  {
    name: "a nested params value",
    content: { params: { 明細: [{ 品名: "a\udc00" }] } },
    code: "VALIDATION_FAILED",
    field: (r) => (r.includes("single") ? "params.明細.0.品名" : "contents.0.params.明細.0.品名"),
  },
  {
    name: "webhookUrl",
    extra: { webhookUrl: "https://hooks.example.com/\ud800" },
    code: "VALIDATION_FAILED",
    field: () => "webhookUrl",
  },
  { name: "designId", extra: { designId: "d\ud800" }, code: "VALIDATION_FAILED", field: () => "designId" },
];

describe("lone surrogates", () => {
  for (const route of routes) {
    for (const c of cases) {
      it(`${route}: ${c.name} → 400 ${c.code} naming the field`, async () => {
        const res = await post(route, c.content ?? {}, c.extra);
        const body = (await res.json()) as { code: string; details: { field?: string; code?: string }[] };
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(body.code).toBe(c.code);
        expect(body.details).toEqual([expect.objectContaining({ field: c.field(route), code: c.code })]);
      });
    }
  }

  it("a paired surrogate (an emoji) is well-formed and renders", async () => {
    const res = await post("/file/sync/single?response=json", { fileName: "emoji-😀", passthrough: { k: "😀" } });
    expect(res.status).toBe(200);
  });

  it("nothing but the emoji file was billed", async () => {
    expect(await pagesUsedNow(stack, tenant.workspaceId)).toBe(1);
  });
});
