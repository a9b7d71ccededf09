/**
 * The invoice type code (BR-CL-01, and Peppol's list) and the XRechnung 3.0 CIUS rules
 * (BR-DE-*) on top of EN 16931; the Peppol rules are in `rules-peppol.ts`.
 */
import type { VatCategory } from "./model.ts";
import { type EinvoiceRule, isBlank, requiredTerm } from "./rules.ts";

const XRECHNUNG = ["xrechnung"] as const;
const PEPPOL = ["peppol-bis"] as const;

/** UNTDID 1001 codes EN 16931 allows for an invoice or a credit note. */
const EN16931_TYPE_CODES = new Set(
  "71 80 81 82 83 84 102 130 202 203 204 211 218 219 261 262 295 296 308 325 326 331 380 381 382 383 384 385 386 387 388 389 390 393 394 395 396 420 456 457 458 527 532 553 575 623 633 751 780 817 870 875 876 877 935".split(
    " ",
  ),
);

/** The codes of Peppol BIS Billing's profile: invoices (P0100) and credit notes (P0101). */
const PEPPOL_TYPE_CODES = new Set(
  "71 80 82 84 102 218 219 326 331 380 382 383 384 386 388 393 395 553 575 623 780 817 870 875 876 877 381 396 81 83 532".split(
    " ",
  ),
);

export const typeCodeRules: readonly EinvoiceRule[] = [
  {
    id: "BR-CL-01",
    path: "typeCode",
    message: {
      en: "The invoice type code (BT-3) must be an invoice or credit note code of UNTDID 1001, such as 380 (invoice) or 381 (credit note).",
      ja: "請求書タイプコード (BT-3) は UNTDID 1001 の請求書またはクレジットノートのコード（例: 380 請求書、381 クレジットノート）でなければなりません。",
    },
    check: ({ model }) => (EN16931_TYPE_CODES.has(model.typeCode) ? [] : [{ path: "typeCode" }]),
  },
  {
    id: "PEPPOL-EN16931-P0100",
    path: "typeCode",
    formats: PEPPOL,
    message: {
      en: "The invoice type code (BT-3) is not one the Peppol BIS Billing profile allows: use 380 (invoice) or 381 (credit note).",
      ja: "請求書タイプコード (BT-3) は Peppol BIS Billing のプロファイルで使えないコードです。380（請求書）または 381（クレジットノート）を使ってください。",
    },
    check: ({ model }) =>
      EN16931_TYPE_CODES.has(model.typeCode) && !PEPPOL_TYPE_CODES.has(model.typeCode) ? [{ path: "typeCode" }] : [],
  },
  {
    id: "PEPPOL-EN16931-P0112",
    path: "typeCode",
    formats: PEPPOL,
    message: {
      en: "Type codes 326 (partial invoice) and 384 (corrected invoice) are only allowed when both seller and buyer are in Germany.",
      ja: "タイプコード 326（一部請求書）と 384（訂正請求書）は、売り手と買い手がともにドイツにある場合にのみ使えます。",
    },
    check: ({ model }) =>
      ["326", "384"].includes(model.typeCode) &&
      !(model.seller?.address?.country === "DE" && model.buyer?.address?.country === "DE")
        ? [{ path: "typeCode" }]
        : [],
  },
];

const when = {
  sellerAddress: (m: { seller?: { address?: object } }) => m.seller?.address !== undefined,
  buyerAddress: (m: { buyer?: { address?: object } }) => m.buyer?.address !== undefined,
  sellerContact: (m: { seller?: { contact?: object } }) => m.seller?.contact !== undefined,
};

/** Categories for which BR-DE-16 asks for the seller's VAT or tax registration identifier. */
const TAXED: readonly VatCategory[] = ["S", "Z", "E", "AE", "K", "G", "L", "M"];

/** XRechnung 3.0: the BR-DE rules that apply to the model. */
export const xrechnungRules: readonly EinvoiceRule[] = [
  requiredTerm(
    "BR-DE-1",
    "payment",
    {
      en: "An XRechnung needs payment instructions (BG-16).",
      ja: "XRechnung には支払指示 (BG-16) が必要です。",
    },
    (m) => m.payment,
    { formats: XRECHNUNG },
  ),
  requiredTerm(
    "BR-DE-2",
    "seller.contact",
    { en: "An XRechnung needs the seller's contact (BG-6).", ja: "XRechnung には売り手の連絡先 (BG-6) が必要です。" },
    (m) => m.seller?.contact,
    { formats: XRECHNUNG },
  ),
  requiredTerm(
    "BR-DE-3",
    "seller.address.city",
    { en: "An XRechnung needs the seller's city (BT-37).", ja: "XRechnung には売り手の市区町村 (BT-37) が必要です。" },
    (m) => m.seller?.address?.city,
    { formats: XRECHNUNG, when: when.sellerAddress },
  ),
  requiredTerm(
    "BR-DE-4",
    "seller.address.postcode",
    {
      en: "An XRechnung needs the seller's post code (BT-38).",
      ja: "XRechnung には売り手の郵便番号 (BT-38) が必要です。",
    },
    (m) => m.seller?.address?.postcode,
    { formats: XRECHNUNG, when: when.sellerAddress },
  ),
  requiredTerm(
    "BR-DE-5",
    "seller.contact.name",
    {
      en: "An XRechnung needs the seller's contact point (BT-41), a person or department.",
      ja: "XRechnung には売り手の担当者・部署 (BT-41) が必要です。",
    },
    (m) => m.seller?.contact?.name,
    { formats: XRECHNUNG, when: when.sellerContact },
  ),
  requiredTerm(
    "BR-DE-6",
    "seller.contact.phone",
    {
      en: "An XRechnung needs the seller's contact telephone number (BT-42).",
      ja: "XRechnung には売り手の連絡先電話番号 (BT-42) が必要です。",
    },
    (m) => m.seller?.contact?.phone,
    { formats: XRECHNUNG, when: when.sellerContact },
  ),
  requiredTerm(
    "BR-DE-7",
    "seller.contact.email",
    {
      en: "An XRechnung needs the seller's contact e-mail address (BT-43).",
      ja: "XRechnung には売り手の連絡先メールアドレス (BT-43) が必要です。",
    },
    (m) => m.seller?.contact?.email,
    { formats: XRECHNUNG, when: when.sellerContact },
  ),
  requiredTerm(
    "BR-DE-8",
    "buyer.address.city",
    { en: "An XRechnung needs the buyer's city (BT-52).", ja: "XRechnung には買い手の市区町村 (BT-52) が必要です。" },
    (m) => m.buyer?.address?.city,
    { formats: XRECHNUNG, when: when.buyerAddress },
  ),
  requiredTerm(
    "BR-DE-9",
    "buyer.address.postcode",
    {
      en: "An XRechnung needs the buyer's post code (BT-53).",
      ja: "XRechnung には買い手の郵便番号 (BT-53) が必要です。",
    },
    (m) => m.buyer?.address?.postcode,
    { formats: XRECHNUNG, when: when.buyerAddress },
  ),
  requiredTerm(
    "BR-DE-15",
    "buyerReference",
    {
      en: "An XRechnung needs the buyer reference (BT-10); for a public buyer, its Leitweg-ID.",
      ja: "XRechnung には買い手参照 (BT-10) が必要です（公的機関の買い手には Leitweg-ID）。",
    },
    (m) => m.buyerReference,
    { formats: XRECHNUNG },
  ),
  {
    id: "BR-DE-16",
    path: "seller.vatId",
    formats: XRECHNUNG,
    message: {
      en: "An XRechnung with VAT categories S, Z, E, AE, K, G, L or M needs the seller's VAT identifier (BT-31) or tax registration identifier (BT-32).",
      ja: "VAT 区分 S、Z、E、AE、K、G、L、M を含む XRechnung には、売り手の VAT 識別番号 (BT-31) または税務登録番号 (BT-32) が必要です。",
    },
    check: ({ model, itemsByCategory }) =>
      TAXED.some((c) => itemsByCategory.has(c)) &&
      isBlank(model.seller?.vatId) &&
      isBlank(model.seller?.taxRegistrationId)
        ? [{ path: "seller.vatId" }]
        : [],
  },
  meansWithoutGroup("BR-DE-24-a", ["48", "54", "55"], {
    en: "A payment card (payment means {code}) needs payment card information (BG-18), which the model does not carry: use a credit transfer (58 or 30).",
    ja: "カード払い（支払手段 {code}）にはカード情報 (BG-18) が必要ですが、モデルにはありません。振込（58 または 30）を使ってください。",
  }),
  meansWithoutGroup("BR-DE-25-a", ["59"], {
    en: "A direct debit (payment means {code}) needs direct debit information (BG-19), which the model does not carry: use a credit transfer (58 or 30).",
    ja: "口座引落（支払手段 {code}）には引落情報 (BG-19) が必要ですが、モデルにはありません。振込（58 または 30）を使ってください。",
  }),
];

/** A payment means whose group (card, direct debit) the model cannot give: XRechnung requires it. */
function meansWithoutGroup(id: string, codes: readonly string[], message: EinvoiceRule["message"]): EinvoiceRule {
  return {
    id,
    path: "payment.meansCode",
    formats: XRECHNUNG,
    message,
    check: ({ model }) => {
      const code = model.payment?.meansCode?.trim() ?? "";
      return codes.includes(code) ? [{ path: "payment.meansCode", vars: { code } }] : [];
    },
  };
}
