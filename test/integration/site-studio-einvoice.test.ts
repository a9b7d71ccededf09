import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csrfOf, directSite, FakeIdentity } from "../helpers/site-direct.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant, publishFolder, type Tenant } from "../helpers/sync-fixtures.ts";

/**
 * The studio's editor for an e-invoice design (functions/site/README.md#the-design-studio), the site's
 * real handler in this process against the shared stack's stores, an ADMIN faked: the einvoice.liquid
 * tab, a preview whose invoice breaks a rule answering each rule id with its model path in the page's
 * language (and the form's publish listing it so), and the mapping kept by a draft and by a refused form. Previews here fail before a browser.
 */

const SAMPLE = join(import.meta.dirname, "../../shared/designs/samples/invoice-ja-einvoice");
const manifest = JSON.parse(readFileSync(join(SAMPLE, "design.json"), "utf8"));
const mapping = readFileSync(join(SAMPLE, "einvoice.liquid"), "utf8");
/** The mapping without the seller's name: BR-06 at seller.name. */
const NAMELESS = mapping.replace(/\n\s*"name": \{\{ 発行元\.会社名 [^\n]*/, "");

let stack: SharedStack;
let tenant: Tenant;
let designId: string;
const identity = new FakeIdentity().addUser("writer", "writer@einvoice.example");
const site = directSite(identity);
const admin = identity.cookie("writer");

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  tenant = await createTenant(stack, "studio e-invoices");
  identity.grant(tenant.workspaceId, "writer", "admin");
  designId = (await publishFolder(stack, tenant.workspaceId, SAMPLE)).id;
});

afterAll(() => stack?.release());

/** The editor's fields as its script sends them, with the given mapping. */
const fields = (einvoiceMapping: string) => ({
  template: readFileSync(join(SAMPLE, "template.liquid"), "utf8"),
  style: "",
  parameters: manifest.parameters,
  sampleParams: manifest.sampleParams,
  einvoiceMapping,
});

/** A script call of the editor (JSON, the page's CSRF token), in the page's language. */
async function scriptCall(method: string, path: string, body: unknown, lang: "en" | "ja" = "en") {
  const cookie = `${admin}; platen_lang=${lang}`;
  const csrf = csrfOf((await site("GET", `/designs/${designId}`, { cookie })).text);
  const answer = await site(method, path, {
    cookie,
    body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", "x-csrf-token": csrf },
  });
  return { status: answer.status, body: JSON.parse(answer.text) };
}

describe("the editor of an e-invoice design", () => {
  it("has an einvoice.liquid tab holding the mapping; a design without einvoice has none", async () => {
    const editor = await site("GET", `/designs/${designId}`, { cookie: admin });
    expect(editor.status).toBe(200);
    expect(editor.text).toContain('id="tab-einvoiceMapping"');
    expect(editor.text).toContain('<textarea id="src-einvoiceMapping" name="einvoiceMapping"');
    expect(editor.text).toContain("{{ 発行元.会社名 | default: &quot;&quot; | json }}");
    const plain = await site("GET", `/designs/${tenant.invoiceId}`, { cookie: admin });
    expect(plain.status).toBe(200);
    expect(plain.text).not.toContain("tab-einvoiceMapping");
  });

  it("previews without sample data as 422 EINVOICE_INVALID: each rule id and model path, in the page's language", async () => {
    // Without sampleParams the preview renders the schema's values: an invoice with no number, names or lines.
    const { sampleParams: _none, ...unsampled } = fields(mapping);
    const en = await scriptCall("POST", `/designs/${designId}/preview`, unsampled);
    expect(en.status).toBe(422);
    expect(en.body.code).toBe("EINVOICE_INVALID");
    const rules = (body: { details: Record<string, string>[] }) => body.details.map((d) => [d.file, d.code, d.field]);
    expect(rules(en.body)).toEqual([
      ["einvoice.liquid", "BR-02", "number"],
      ["einvoice.liquid", "BR-03", "issueDate"],
      ["einvoice.liquid", "BR-06", "seller.name"],
      ["einvoice.liquid", "BR-07", "buyer.name"],
      ["einvoice.liquid", "BR-16", "lines"],
      ["einvoice.liquid", "BR-CO-26", "seller.legalId"],
    ]);
    expect(en.body.details[2].message).toBe("The seller's name (BT-27) is required.");
    const ja = await scriptCall("POST", `/designs/${designId}/preview`, unsampled, "ja");
    expect(rules(ja.body)).toEqual(rules(en.body));
    expect(ja.body.details[2].message).toBe("売り手の名称 (BT-27) は必須です。");
  });

  it("previews sample data that breaks a rule as the bundle's problem: einvoice.liquid, the path, the rule, both languages", async () => {
    const en = await scriptCall("POST", `/designs/${designId}/preview`, fields(NAMELESS));
    expect(en.status).toBe(422);
    expect(en.body.code).toBe("DESIGN_BUNDLE_INVALID");
    expect(en.body.details).toEqual([
      {
        file: "einvoice.liquid",
        field: "seller.name",
        code: "BR-06",
        message: "the sample invoice (sampleParams) breaks BR-06: The seller's name (BT-27) is required.",
      },
    ]);
    const ja = await scriptCall("POST", `/designs/${designId}/preview`, fields(NAMELESS), "ja");
    expect(ja.body.details[0].message).toBe(
      "サンプルのインボイス（sampleParams）が BR-06 に違反しています: 売り手の名称 (BT-27) は必須です。",
    );
  });

  it("previews a mapping whose output is not JSON as a problem of einvoice.liquid", async () => {
    const comma = mapping.replace('"currency": "JPY",', '"currency": "JPY"');
    const broken = await scriptCall("POST", `/designs/${designId}/preview`, fields(comma));
    expect(broken.status).toBe(422);
    expect(broken.body.details).toEqual([
      expect.objectContaining({
        file: "einvoice.liquid",
        code: "TEMPLATE_FAILED",
        message: expect.stringContaining("the mapping's output is not JSON"),
      }),
    ]);
  });

  it("saves the mapping with the draft, and a refused form keeps the visitor's mapping", async () => {
    const saved = await scriptCall("PUT", `/designs/${designId}/draft`, fields(NAMELESS));
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const draft = await scriptCall("GET", `/designs/${designId}/draft`, undefined);
    expect(draft.body.draft.einvoiceMapping).toBe(NAMELESS);
    // A draft is never refused for what it says: the broken rule comes back as a warning.
    expect(draft.body.warnings).toContainEqual(
      expect.objectContaining({ file: "einvoice.liquid", field: "seller.name", code: "BR-06" }),
    );
    // Publishing that draft from the form (no script) lists the rule in the page's language.
    const ja = `${admin}; platen_lang=ja`;
    const refusal = await site("POST", `/designs/${designId}/publish`, {
      cookie: ja,
      form: {
        csrf: csrfOf((await site("GET", `/designs/${designId}`, { cookie: ja })).text),
        expectedLatestVersion: "1",
      },
    });
    expect(refusal.status).toBe(422);
    expect(refusal.text).toContain(
      "<li>einvoice.liquid (seller.name): サンプルのインボイス（sampleParams）が BR-06 に違反しています: 売り手の名称 (BT-27) は必須です。</li>",
    );
    // The form without script: parameters that are not JSON come back as a problem, the texts as typed.
    const editor = await site("GET", `/designs/${designId}`, { cookie: admin });
    const typed = `${mapping}\n{%- comment -%} typed {%- endcomment -%}`;
    const refused = await site("POST", `/designs/${designId}/draft`, {
      cookie: admin,
      form: {
        csrf: csrfOf(editor.text),
        template: "<p>x</p>",
        style: "",
        parameters: "[",
        sampleParams: "{}",
        einvoiceMapping: typed,
      },
    });
    expect(refused.text).toContain('id="problem-list"');
    expect(refused.text).toContain("{%- comment -%} typed {%- endcomment -%}");
  });
});
