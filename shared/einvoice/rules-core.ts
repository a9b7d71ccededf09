/**
 * The EN 16931 core rules that apply to Platen's model: mandatory terms (BR-02…BR-16), lines
 * (BR-21…BR-27), document level allowances and charges (BR-31…BR-38), and the conditions
 * (BR-CO-*) that are not sums. The rules Platen meets by construction are listed in
 * README.md#what-is-checked.
 */
import { type EinvoiceRule, eachElement, isBlank, requiredTerm } from "./rules.ts";

/** Mandatory terms of the invoice and its parties. */
export const headerRules: readonly EinvoiceRule[] = [
  requiredTerm(
    "BR-02",
    "number",
    { en: "The invoice number (BT-1) is required.", ja: "請求書番号 (BT-1) は必須です。" },
    (m) => m.number,
  ),
  requiredTerm(
    "BR-03",
    "issueDate",
    { en: "The invoice issue date (BT-2) is required.", ja: "請求書の発行日 (BT-2) は必須です。" },
    (m) => m.issueDate,
  ),
  requiredTerm(
    "BR-05",
    "currency",
    {
      en: "The invoice currency code (BT-5) is required, an ISO 4217 code such as EUR.",
      ja: "請求書の通貨コード (BT-5) は必須です（EUR などの ISO 4217 コード）。",
    },
    (m) => m.currency,
  ),
  requiredTerm(
    "BR-06",
    "seller.name",
    { en: "The seller's name (BT-27) is required.", ja: "売り手の名称 (BT-27) は必須です。" },
    (m) => m.seller?.name,
  ),
  requiredTerm(
    "BR-07",
    "buyer.name",
    { en: "The buyer's name (BT-44) is required.", ja: "買い手の名称 (BT-44) は必須です。" },
    (m) => m.buyer?.name,
  ),
  requiredTerm(
    "BR-08",
    "seller.address",
    { en: "The seller's postal address (BG-5) is required.", ja: "売り手の住所 (BG-5) は必須です。" },
    (m) => m.seller?.address,
  ),
  requiredTerm(
    "BR-09",
    "seller.address.country",
    {
      en: "The seller's postal address needs its country code (BT-40), such as DE.",
      ja: "売り手の住所には国コード (BT-40、例: DE) が必要です。",
    },
    (m) => m.seller?.address?.country,
    { when: (m) => m.seller?.address !== undefined },
  ),
  requiredTerm(
    "BR-10",
    "buyer.address",
    { en: "The buyer's postal address (BG-8) is required.", ja: "買い手の住所 (BG-8) は必須です。" },
    (m) => m.buyer?.address,
  ),
  requiredTerm(
    "BR-11",
    "buyer.address.country",
    {
      en: "The buyer's postal address needs its country code (BT-55), such as FR.",
      ja: "買い手の住所には国コード (BT-55、例: FR) が必要です。",
    },
    (m) => m.buyer?.address?.country,
    { when: (m) => m.buyer?.address !== undefined },
  ),
  {
    id: "BR-16",
    path: "lines",
    message: {
      en: "An invoice needs at least one line (BG-25).",
      ja: "請求書には明細 (BG-25) が少なくとも 1 行必要です。",
    },
    check: ({ model }) => ((model.lines ?? []).length === 0 ? [{ path: "lines" }] : []),
  },
];

/** The terms each line needs. */
export const lineRules: readonly EinvoiceRule[] = [
  eachElement(
    "BR-21",
    "lines",
    "id",
    { en: "Each line needs its line identifier (BT-126).", ja: "各明細には明細 ID (BT-126) が必要です。" },
    (l) => isBlank(l.id),
  ),
  eachElement(
    "BR-22",
    "lines",
    "quantity",
    { en: "Each line needs its invoiced quantity (BT-129).", ja: "各明細には数量 (BT-129) が必要です。" },
    (l) => l.quantity === undefined,
  ),
  eachElement(
    "BR-25",
    "lines",
    "name",
    { en: "Each line needs its item name (BT-153).", ja: "各明細には品名 (BT-153) が必要です。" },
    (l) => isBlank(l.name),
  ),
  eachElement(
    "BR-26",
    "lines",
    "netPrice",
    { en: "Each line needs its item net price (BT-146).", ja: "各明細には正味単価 (BT-146) が必要です。" },
    (l) => l.netPrice === undefined,
  ),
  eachElement(
    "BR-27",
    "lines",
    "netPrice",
    {
      en: "The item net price (BT-146) must not be negative: give a discount as an allowance, a return as a negative quantity.",
      ja: "正味単価 (BT-146) は負の値にできません。値引きは控除 (allowance) として、返品は負の数量として記載してください。",
    },
    (l) => l.netPrice !== undefined && l.netPrice < 0,
  ),
  eachElement(
    "BR-CO-04",
    "lines",
    "vat",
    { en: "Each line needs its VAT category (BT-151).", ja: "各明細には VAT 区分 (BT-151) が必要です。" },
    (l) => l.vat === undefined,
  ),
];

/** The terms each document level allowance (BG-20) and charge (BG-21) needs. */
export const allowanceChargeRules: readonly EinvoiceRule[] = [
  eachElement(
    "BR-31",
    "allowances",
    "amount",
    {
      en: "Each document level allowance needs its amount (BT-92).",
      ja: "文書レベルの各控除には金額 (BT-92) が必要です。",
    },
    (a) => a.amount === undefined,
  ),
  eachElement(
    "BR-32",
    "allowances",
    "vat",
    {
      en: "Each document level allowance needs its VAT category (BT-95).",
      ja: "文書レベルの各控除には VAT 区分 (BT-95) が必要です。",
    },
    (a) => a.vat === undefined,
  ),
  eachElement(
    "BR-33",
    "allowances",
    "reason",
    {
      en: "Each document level allowance needs its reason (BT-97).",
      ja: "文書レベルの各控除には理由 (BT-97) が必要です。",
    },
    (a) => isBlank(a.reason),
  ),
  eachElement(
    "BR-36",
    "charges",
    "amount",
    {
      en: "Each document level charge needs its amount (BT-99).",
      ja: "文書レベルの各追加料金には金額 (BT-99) が必要です。",
    },
    (c) => c.amount === undefined,
  ),
  eachElement(
    "BR-37",
    "charges",
    "vat",
    {
      en: "Each document level charge needs its VAT category (BT-102).",
      ja: "文書レベルの各追加料金には VAT 区分 (BT-102) が必要です。",
    },
    (c) => c.vat === undefined,
  ),
  eachElement(
    "BR-38",
    "charges",
    "reason",
    {
      en: "Each document level charge needs its reason (BT-104).",
      ja: "文書レベルの各追加料金には理由 (BT-104) が必要です。",
    },
    (c) => isBlank(c.reason),
  ),
];

/** A VAT identifier starts with the two letters of its country (`DE…`, `EL…` for Greece). */
const COUNTRY_PREFIX = /^[A-Z]{2}/;

const vatIdPrefix = (party: "seller" | "buyer", term: string): EinvoiceRule => ({
  id: "BR-CO-09",
  path: `${party}.vatId`,
  message: {
    en: `The ${party}'s VAT identifier (${term}) must start with its country code, as in DE123456789 (EL for Greece).`,
    ja: `${party === "seller" ? "売り手" : "買い手"}の VAT 識別番号 (${term}) は DE123456789 のように国コードで始める必要があります（ギリシャは EL）。`,
  },
  check: ({ model }) => {
    const id = model[party]?.vatId;
    return id !== undefined && !isBlank(id) && !COUNTRY_PREFIX.test(id.trim()) ? [{ path: `${party}.vatId` }] : [];
  },
});

/** Conditions across the invoice (BR-CO-*) and the payment instructions (BR-49, BR-61). */
export const conditionRules: readonly EinvoiceRule[] = [
  vatIdPrefix("seller", "BT-31"),
  vatIdPrefix("buyer", "BT-48"),
  {
    id: "BR-CO-18",
    path: "lines",
    message: {
      en: "The invoice needs at least one VAT breakdown (BG-23): give its lines a VAT category.",
      ja: "請求書には VAT 内訳 (BG-23) が少なくとも 1 つ必要です。明細に VAT 区分を指定してください。",
    },
    check: ({ model, computed }) =>
      (model.lines ?? []).length > 0 && computed.vatBreakdown.length === 0 ? [{ path: "lines" }] : [],
  },
  {
    id: "BR-CO-25",
    path: "dueDate",
    message: {
      en: "The amount due is positive, so the invoice needs a payment due date (BT-9) or payment terms (BT-20).",
      ja: "支払金額が正のため、支払期日 (BT-9) または支払条件 (BT-20) が必要です。",
    },
    check: ({ model, computed }) =>
      computed.totals.duePayable > 0 && model.dueDate === undefined && isBlank(model.paymentTerms)
        ? [{ path: "dueDate" }]
        : [],
  },
  requiredTerm(
    "BR-CO-26",
    "seller.legalId",
    {
      en: "The seller needs a legal registration identifier (BT-30) or a VAT identifier (BT-31), so the buyer can identify them.",
      ja: "買い手が売り手を識別できるよう、売り手の法人登録番号 (BT-30) または VAT 識別番号 (BT-31) が必要です。",
    },
    (m) => (isBlank(m.seller?.legalId) && isBlank(m.seller?.vatId) ? undefined : true),
  ),
  requiredTerm(
    "BR-49",
    "payment.meansCode",
    {
      en: "Payment instructions (BG-16) need a payment means code (BT-81), such as 58 for a SEPA credit transfer.",
      ja: "支払指示 (BG-16) には支払手段コード (BT-81、例: SEPA 振込は 58) が必要です。",
    },
    (m) => m.payment?.meansCode,
    { when: (m) => m.payment !== undefined },
  ),
  requiredTerm(
    "BR-61",
    "payment.iban",
    {
      en: "A credit transfer (payment means 30 or 58) needs the account to pay into (BT-84).",
      ja: "振込（支払手段 30 または 58）には振込先口座 (BT-84) が必要です。",
    },
    (m) => m.payment?.iban,
    { when: (m) => ["30", "58"].includes(m.payment?.meansCode?.trim() ?? "") },
  ),
];
