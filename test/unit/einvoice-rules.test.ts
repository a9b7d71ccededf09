import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkInvoice, EINVOICE_RULES, type EinvoiceCheck } from "#shared/einvoice/check.ts";
import { EINVOICE_FORMATS, type EinvoiceFormat, VAT_CATEGORIES, type VatCategory } from "#shared/einvoice/model.ts";
import { baseInvoice, invoiceInCategory, invoiceWith, type ModelInput } from "../helpers/einvoice-model-fixtures.ts";

/**
 * One row per rule: a failing model (the base invoice with one change) must break exactly that
 * rule at exactly that path, and the passing model (the base invoice unless the rule needs a
 * setting to apply) must be a valid invoice.
 */
interface RuleCase {
  readonly rule: string;
  readonly path: string;
  readonly fail: ModelInput;
  readonly pass?: ModelInput;
  readonly format?: EinvoiceFormat;
}

const XR = "xrechnung";
const PEPPOL = "peppol-bis";

const headerCases: RuleCase[] = [
  { rule: "BR-02", path: "number", fail: invoiceWith((m) => delete m.number) },
  { rule: "BR-03", path: "issueDate", fail: invoiceWith((m) => delete m.issueDate) },
  { rule: "BR-05", path: "currency", fail: invoiceWith((m) => delete m.currency) },
  { rule: "BR-06", path: "seller.name", fail: invoiceWith((m) => (m.seller!.name = "  ")) },
  { rule: "BR-07", path: "buyer.name", fail: invoiceWith((m) => delete m.buyer!.name) },
  { rule: "BR-08", path: "seller.address", fail: invoiceWith((m) => delete m.seller!.address) },
  { rule: "BR-09", path: "seller.address.country", fail: invoiceWith((m) => delete m.seller!.address!.country) },
  { rule: "BR-10", path: "buyer.address", fail: invoiceWith((m) => delete m.buyer!.address) },
  { rule: "BR-11", path: "buyer.address.country", fail: invoiceWith((m) => delete m.buyer!.address!.country) },
  { rule: "BR-16", path: "lines", fail: invoiceWith((m) => (m.lines = [])) },
  { rule: "BR-CL-01", path: "typeCode", fail: invoiceWith((m) => (m.typeCode = "999")) },
  { rule: "PEPPOL-EN16931-P0100", path: "typeCode", format: PEPPOL, fail: invoiceWith((m) => (m.typeCode = "389")) },
  {
    rule: "PEPPOL-EN16931-P0112",
    path: "typeCode",
    format: PEPPOL,
    fail: invoiceWith((m) => (m.typeCode = "326")),
    pass: invoiceWith((m) => {
      m.typeCode = "326";
      m.buyer!.address!.country = "DE";
    }),
  },
];

const itemCases: RuleCase[] = [
  { rule: "BR-21", path: "lines.1.id", fail: invoiceWith((m) => (m.lines![1]!.id = "")) },
  { rule: "BR-22", path: "lines.1.quantity", fail: invoiceWith((m) => delete m.lines![1]!.quantity) },
  { rule: "BR-25", path: "lines.0.name", fail: invoiceWith((m) => delete m.lines![0]!.name) },
  { rule: "BR-26", path: "lines.1.netPrice", fail: invoiceWith((m) => delete m.lines![1]!.netPrice) },
  { rule: "BR-27", path: "lines.0.netPrice", fail: invoiceWith((m) => (m.lines![0]!.netPrice = -0.01)) },
  { rule: "BR-CO-04", path: "lines.1.vat", fail: invoiceWith((m) => delete m.lines![1]!.vat) },
  { rule: "BR-31", path: "allowances.0.amount", fail: invoiceWith((m) => delete m.allowances![0]!.amount) },
  { rule: "BR-32", path: "allowances.0.vat", fail: invoiceWith((m) => delete m.allowances![0]!.vat) },
  { rule: "BR-33", path: "allowances.0.reason", fail: invoiceWith((m) => delete m.allowances![0]!.reason) },
  { rule: "BR-36", path: "charges.0.amount", fail: invoiceWith((m) => delete m.charges![0]!.amount) },
  { rule: "BR-37", path: "charges.0.vat", fail: invoiceWith((m) => delete m.charges![0]!.vat) },
  { rule: "BR-38", path: "charges.0.reason", fail: invoiceWith((m) => (m.charges![0]!.reason = "")) },
];

const conditionCases: RuleCase[] = [
  { rule: "BR-CO-09", path: "seller.vatId", fail: invoiceWith((m) => (m.seller!.vatId = "123456789")) },
  {
    rule: "BR-CO-09",
    path: "buyer.vatId",
    fail: invoiceWith((m) => (m.buyer!.vatId = "40303265045")),
    pass: invoiceWith((m) => (m.buyer!.vatId = "FR40303265045")),
  },
  {
    rule: "BR-CO-18",
    path: "lines",
    fail: invoiceWith((m) => {
      for (const item of [...m.lines!, ...m.allowances!, ...m.charges!]) delete item.vat;
    }),
  },
  {
    rule: "BR-CO-25",
    path: "dueDate",
    fail: invoiceWith((m) => {
      delete m.dueDate;
      delete m.paymentTerms;
    }),
  },
  {
    rule: "BR-CO-26",
    path: "seller.legalId",
    fail: invoiceWith((m) => {
      delete m.seller!.legalId;
      delete m.seller!.vatId;
      m.seller!.taxRegistrationId = "T1234567890123";
    }),
  },
  { rule: "BR-49", path: "payment.meansCode", fail: invoiceWith((m) => delete m.payment!.meansCode) },
  { rule: "BR-61", path: "payment.iban", fail: invoiceWith((m) => delete m.payment!.iban) },
];

/** Platen's totals of the base invoice, as a mapping would give them. */
const RIGHT_TOTALS = {
  lineTotal: 45.3,
  allowanceTotal: 5,
  chargeTotal: "4.90",
  taxBasis: 45.2,
  taxTotal: 6.79,
  grandTotal: 51.99,
  duePayable: "51.99",
} as const;
type TotalName = keyof typeof RIGHT_TOTALS;
const withTotal = (name: TotalName, value: number | string) =>
  invoiceWith((m) => (m.totals = { ...RIGHT_TOTALS, [name]: value }));
const rightTotals = invoiceWith((m) => (m.totals = { ...RIGHT_TOTALS }));

const SUMS: [string, string, TotalName, number][] = [
  ["BR-CO-10", "BR-DEC-09", "lineTotal", 45.3],
  ["BR-CO-11", "BR-DEC-10", "allowanceTotal", 5],
  ["BR-CO-12", "BR-DEC-11", "chargeTotal", 4.9],
  ["BR-CO-13", "BR-DEC-12", "taxBasis", 45.2],
  ["BR-CO-14", "BR-DEC-13", "taxTotal", 6.79],
  ["BR-CO-15", "BR-DEC-14", "grandTotal", 51.99],
  ["BR-CO-16", "BR-DEC-18", "duePayable", 51.99],
];

const totalCases: RuleCase[] = [
  ...SUMS.flatMap(([sumRule, decimalRule, name, right]): RuleCase[] => [
    // One cent off.
    {
      rule: sumRule,
      path: `totals.${name}`,
      fail: withTotal(name, (Math.round(right * 100) + 1) / 100),
      pass: rightTotals,
    },
    // A third decimal (which also makes the sum differ).
    { rule: decimalRule, path: `totals.${name}`, fail: withTotal(name, `${right.toFixed(2)}1`), pass: rightTotals },
  ]),
  { rule: "BR-DEC-01", path: "allowances.0.amount", fail: invoiceWith((m) => (m.allowances![0]!.amount = 5.001)) },
  { rule: "BR-DEC-05", path: "charges.0.amount", fail: invoiceWith((m) => (m.charges![0]!.amount = "4.905")) },
];

const xrechnungCases: RuleCase[] = [
  { rule: "BR-DE-1", path: "payment", fail: invoiceWith((m) => delete m.payment) },
  { rule: "BR-DE-2", path: "seller.contact", fail: invoiceWith((m) => delete m.seller!.contact) },
  { rule: "BR-DE-3", path: "seller.address.city", fail: invoiceWith((m) => delete m.seller!.address!.city) },
  { rule: "BR-DE-4", path: "seller.address.postcode", fail: invoiceWith((m) => delete m.seller!.address!.postcode) },
  { rule: "BR-DE-5", path: "seller.contact.name", fail: invoiceWith((m) => delete m.seller!.contact!.name) },
  { rule: "BR-DE-6", path: "seller.contact.phone", fail: invoiceWith((m) => delete m.seller!.contact!.phone) },
  { rule: "BR-DE-7", path: "seller.contact.email", fail: invoiceWith((m) => delete m.seller!.contact!.email) },
  { rule: "BR-DE-8", path: "buyer.address.city", fail: invoiceWith((m) => delete m.buyer!.address!.city) },
  { rule: "BR-DE-9", path: "buyer.address.postcode", fail: invoiceWith((m) => delete m.buyer!.address!.postcode) },
  { rule: "BR-DE-15", path: "buyerReference", fail: invoiceWith((m) => delete m.buyerReference) },
  { rule: "BR-DE-16", path: "seller.vatId", fail: invoiceWith((m) => delete m.seller!.vatId) },
  { rule: "BR-DE-24-a", path: "payment.meansCode", fail: invoiceWith((m) => (m.payment!.meansCode = "54")) },
  { rule: "BR-DE-25-a", path: "payment.meansCode", fail: invoiceWith((m) => (m.payment!.meansCode = "59")) },
].map((c) => ({ ...c, format: XR }));

const peppolCases: RuleCase[] = [
  {
    rule: "PEPPOL-EN16931-R003",
    path: "buyerReference",
    format: PEPPOL,
    fail: invoiceWith((m) => {
      delete m.buyerReference;
      delete m.orderReference;
    }),
    pass: invoiceWith((m) => delete m.buyerReference),
  },
  ...([XR, PEPPOL] as const).flatMap((format): RuleCase[] => [
    {
      rule: "PEPPOL-EN16931-R010",
      path: "buyer.electronicAddress",
      format,
      fail: invoiceWith((m) => delete m.buyer!.electronicAddress),
    },
    {
      rule: "PEPPOL-EN16931-R020",
      path: "seller.electronicAddress",
      format,
      fail: invoiceWith((m) => delete m.seller!.electronicAddress),
    },
  ]),
  {
    rule: "PLATEN-UBL-CREDIT-NOTE-DUE-DATE",
    path: "payment.meansCode",
    format: PEPPOL,
    fail: invoiceWith((m) => {
      m.typeCode = "381";
      delete m.payment!.meansCode;
    }),
    pass: invoiceWith((m) => (m.typeCode = "381")),
  },
];

/** The rule family of each category, and a rate each family refuses. */
const FAMILIES: [VatCategory, string, number | undefined][] = [
  ["S", "BR-S", 0],
  ["Z", "BR-Z", 5],
  ["E", "BR-E", 5],
  ["AE", "BR-AE", 19],
  ["K", "BR-IC", 19],
  ["G", "BR-G", 19],
  ["O", "BR-O", 0],
  ["L", "BR-IG", -1],
  ["M", "BR-IP", -1],
];
const LISTS = ["lines", "allowances", "charges"] as const;
const REASON_REQUIRED = new Set<VatCategory>(["E", "AE", "K", "G", "O"]);
const id = (prefix: string, n: number) => `${prefix}-${String(n).padStart(2, "0")}`;
const inCategoryWith = (category: VatCategory, change: (m: ModelInput) => void) => {
  const invoice = invoiceInCategory(category);
  change(invoice);
  return invoice;
};

const vatCases: RuleCase[] = [
  ...FAMILIES.flatMap(([category, prefix, badRate]): RuleCase[] => {
    const pass = invoiceInCategory(category);
    return [
      ...LISTS.map((_, k) => ({
        rule: id(prefix, 2 + k),
        path: "seller.vatId",
        pass,
        fail: inCategoryWith(category, (m) => {
          if (category === "O") m.seller!.vatId = "DE123456789";
          else delete m.seller!.vatId;
        }),
      })),
      ...LISTS.map((list, k) => ({
        rule: id(prefix, 5 + k),
        path: `${list}.0.vat.rate`,
        pass,
        fail: inCategoryWith(category, (m) => (m[list]![0]!.vat!.rate = badRate)),
      })),
      {
        rule: id(prefix, 10),
        path: `vatExemptionReasons.${category}`,
        pass,
        fail: inCategoryWith(category, (m) => {
          m.vatExemptionReasons = REASON_REQUIRED.has(category) ? {} : { [category]: "Some reason" };
        }),
      },
    ];
  }),
  ...LISTS.map((list, k) => ({
    rule: `BR-O-${12 + k}`,
    path: `${list}.0.vat.category`,
    pass: invoiceInCategory("O"),
    fail: inCategoryWith("O", (m) => (m[list]![0]!.vat = { category: "S", rate: 19 })),
  })),
];

const CASES: (RuleCase & { readonly format: EinvoiceFormat })[] = [
  ...headerCases,
  ...itemCases,
  ...conditionCases,
  ...totalCases,
  ...vatCases,
  ...xrechnungCases,
  ...peppolCases,
].map((c) => ({ format: "factur-x" as const, ...c }));

const violationsOf = (result: EinvoiceCheck) => (result.ok ? [] : result.violations);

describe("e-invoice rules: one passing and one failing model per rule", () => {
  it.each(CASES)("$rule at $path ($format)", ({ rule, path, fail, pass = baseInvoice(), format }) => {
    const failing = checkInvoice(fail, format);
    expect(
      violationsOf(failing)
        .filter((v) => v.rule === rule)
        .map((v) => v.path),
    ).toEqual([path]);
    expect(violationsOf(failing).some((v) => v.rule === "MODEL")).toBe(false);
    expect(violationsOf(checkInvoice(pass, format))).toEqual([]);
  });

  it("has a row for every rule, in a format the rule applies to", () => {
    for (const rule of EINVOICE_RULES) {
      const rows = CASES.filter((c) => c.rule === rule.id && (!rule.formats || rule.formats.includes(c.format)));
      expect(rows.length, rule.id).toBeGreaterThan(0);
    }
    expect(new Set(EINVOICE_RULES.map((r) => r.id)).size).toBeGreaterThan(100);
  });

  it("does not apply a format's rules to another format", () => {
    const noBuyerReference = invoiceWith((m) => {
      delete m.buyerReference;
      delete m.seller!.electronicAddress;
    });
    expect(checkInvoice(noBuyerReference, "factur-x").ok).toBe(true);
    expect(violationsOf(checkInvoice(noBuyerReference, "peppol-bis")).map((v) => v.rule)).toEqual([
      "PEPPOL-EN16931-R020",
    ]);
    expect(violationsOf(checkInvoice(noBuyerReference, "xrechnung")).map((v) => v.rule)).toEqual([
      "BR-DE-15",
      "PEPPOL-EN16931-R020",
    ]);
  });

  it("accepts the base invoice and a valid invoice of every VAT category in every format", () => {
    for (const format of EINVOICE_FORMATS) {
      expect(violationsOf(checkInvoice(baseInvoice(), format)), format).toEqual([]);
      for (const category of VAT_CATEGORIES) {
        expect(violationsOf(checkInvoice(invoiceInCategory(category), format)), `${format} ${category}`).toEqual([]);
      }
    }
  });
});

describe("e-invoice rule messages", () => {
  const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

  it("say every rule in English and Japanese, with the same placeholders", () => {
    for (const rule of EINVOICE_RULES) {
      expect(rule.message.en, rule.id).toMatch(/^[A-Z].*\.$/);
      expect(rule.message.ja, rule.id).toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
      expect(placeholders(rule.message.ja), rule.id).toEqual(placeholders(rule.message.en));
    }
  });

  it("name the given and the expected total, and the decimals a currency allows", () => {
    const sums = violationsOf(checkInvoice(withTotal("taxTotal", 6.8), "factur-x"));
    expect(sums[0]?.message.en).toContain("6.8, differs from the sum of the VAT breakdown, 6.79");
    expect(sums[0]?.message.ja).toContain("6.8");
    const yen = invoiceWith((m) => {
      m.currency = "JPY";
      m.allowances![0]!.amount = 5.5;
    });
    const decimals = violationsOf(checkInvoice(yen, "factur-x")).find((v) => v.rule === "BR-DEC-01");
    expect(decimals?.message).toEqual({
      en: "In JPY, a document level allowance amount (BT-92) has at most 0 decimals.",
      ja: "JPY では、文書レベルの控除額 (BT-92) の小数部は 0 桁までです。",
    });
  });

  it("fill the payment means code into BR-DE-24-a", () => {
    const card = invoiceWith((m) => (m.payment!.meansCode = "48"));
    const violation = violationsOf(checkInvoice(card, "xrechnung")).find((v) => v.rule === "BR-DE-24-a");
    expect(violation?.message.en).toContain("payment means 48");
    expect(violation?.message.ja).toContain("支払手段 48");
  });
});

describe("shared/einvoice/README.md", () => {
  const readme = readFileSync(new URL("../../shared/einvoice/README.md", import.meta.url), "utf8");
  const checked = readme.slice(readme.indexOf("## What is checked"), readme.indexOf("### Met by construction"));

  it("lists every rule that is checked (a VAT category rule by its family)", () => {
    const family = /^(BR-(?:S|Z|E|AE|IC|G|O|IG|IP))-(?:0[2-7]|10)$/;
    for (const { id } of EINVOICE_RULES) {
      const named = family.exec(id)?.[1] ?? id;
      // A rule of a numbered run (BR-CO-10 … BR-CO-16) may be named by the run's ends.
      const inRun = /^(.*-)(\d+)$/.exec(id);
      const runs = [...checked.matchAll(/(BR-[A-Z-]+?)(\d+) … (?:BR-[A-Z-]+?)?(\d+)/g)];
      const covered =
        new RegExp(`(?<![\\w-])${named}(?![\\w-])`).test(checked) ||
        (inRun !== null &&
          runs.some(([, prefix, from, to]) => prefix === inRun[1] && +inRun[2]! >= +from! && +inRun[2]! <= +to!)) ||
        (id.startsWith("PEPPOL-EN16931-R0") && checked.includes(`-${id.slice(-4)}`));
      expect(covered, id).toBe(true);
    }
  });

  it("has the sections the model's users read", () => {
    for (const heading of ["## The model", "## Computed values", "## What is checked", "## Formats"]) {
      expect(readme).toContain(`\n${heading}\n`);
    }
  });
});
