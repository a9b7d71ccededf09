/**
 * The VAT category rules of EN 16931, one family per category: BR-S (standard rate), BR-Z
 * (zero rated), BR-E (exempt), BR-AE (reverse charge), BR-IC (intra-community supply, category
 * K), BR-G (export), BR-O (not subject to VAT), BR-IG (IGIC, category L) and BR-IP (IPSI,
 * category M). Each family has the same numbering: -02…-04 the parties' identifiers for a
 * line, an allowance, a charge; -05…-07 their VAT rate; -10 the exemption reason.
 */
import type { Bilingual } from "#shared/i18n/texts.ts";
import type { VatCategory } from "./model.ts";
import { type Breach, type EinvoiceRule, isBlank, type RuleInput, type VatItem } from "./rules.ts";

interface CategoryFamily {
  readonly category: VatCategory;
  readonly prefix: string;
  readonly name: Bilingual;
  /** What the rate of each item must be (-05…-07). */
  readonly rate: "positive" | "zero" | "zero-or-more" | "none";
  /** Which identifiers the parties need (-02…-04); `none` forbids the VAT identifiers. */
  readonly ids: "seller-vat-or-tax" | "seller-vat" | "reverse-charge" | "intra-community" | "none";
  /** Whether the breakdown needs an exemption reason or must not have one (-10). */
  readonly reason: "required" | "forbidden";
}

const FAMILIES: readonly CategoryFamily[] = [
  {
    category: "S",
    prefix: "BR-S",
    name: { en: "standard rated", ja: "標準税率" },
    rate: "positive",
    ids: "seller-vat-or-tax",
    reason: "forbidden",
  },
  {
    category: "Z",
    prefix: "BR-Z",
    name: { en: "zero rated", ja: "ゼロ税率" },
    rate: "zero",
    ids: "seller-vat-or-tax",
    reason: "forbidden",
  },
  {
    category: "E",
    prefix: "BR-E",
    name: { en: "exempt from VAT", ja: "非課税" },
    rate: "zero",
    ids: "seller-vat-or-tax",
    reason: "required",
  },
  {
    category: "AE",
    prefix: "BR-AE",
    name: { en: "reverse charge", ja: "リバースチャージ" },
    rate: "zero",
    ids: "reverse-charge",
    reason: "required",
  },
  {
    category: "K",
    prefix: "BR-IC",
    name: { en: "intra-community supply", ja: "EU 域内供給" },
    rate: "zero",
    ids: "intra-community",
    reason: "required",
  },
  {
    category: "G",
    prefix: "BR-G",
    name: { en: "export outside the EU", ja: "EU 域外への輸出" },
    rate: "zero",
    ids: "seller-vat",
    reason: "required",
  },
  {
    category: "O",
    prefix: "BR-O",
    name: { en: "not subject to VAT", ja: "不課税" },
    rate: "none",
    ids: "none",
    reason: "required",
  },
  {
    category: "L",
    prefix: "BR-IG",
    name: { en: "IGIC, Canary Islands", ja: "カナリア諸島の IGIC" },
    rate: "zero-or-more",
    ids: "seller-vat-or-tax",
    reason: "forbidden",
  },
  {
    category: "M",
    prefix: "BR-IP",
    name: { en: "IPSI, Ceuta and Melilla", ja: "セウタ・メリリャの IPSI" },
    rate: "zero-or-more",
    ids: "seller-vat-or-tax",
    reason: "forbidden",
  },
];

/** The three kinds of item, with their rule number offset and the business terms of their rate. */
const KINDS = [
  { kind: "line", offset: 0, list: "lines", rateTerm: "BT-152", name: { en: "line", ja: "明細" } },
  {
    kind: "allowance",
    offset: 1,
    list: "allowances",
    rateTerm: "BT-96",
    name: { en: "document level allowance", ja: "文書レベルの控除" },
  },
  {
    kind: "charge",
    offset: 2,
    list: "charges",
    rateTerm: "BT-103",
    name: { en: "document level charge", ja: "文書レベルの追加料金" },
  },
] as const;
type Kind = (typeof KINDS)[number];

const ruleId = (family: CategoryFamily, n: number) => `${family.prefix}-${String(n).padStart(2, "0")}`;
const label = (f: CategoryFamily, lang: keyof Bilingual) =>
  lang === "en" ? `category ${f.category} (${f.name.en})` : `VAT 区分 ${f.category}（${f.name.ja}）`;

const itemsOf = (input: RuleInput, family: CategoryFamily, kind: Kind): readonly VatItem[] =>
  (input.itemsByCategory.get(family.category) ?? []).filter((item) => item.kind === kind.kind);

const IDS_TEXT: Record<CategoryFamily["ids"], Bilingual> = {
  "seller-vat-or-tax": {
    en: "the seller's VAT identifier (BT-31) or tax registration identifier (BT-32)",
    ja: "売り手の VAT 識別番号 (BT-31) または税務登録番号 (BT-32) が必要です",
  },
  "seller-vat": { en: "the seller's VAT identifier (BT-31)", ja: "売り手の VAT 識別番号 (BT-31) が必要です" },
  "reverse-charge": {
    en: "the seller's VAT identifier (BT-31) or tax registration identifier (BT-32), and the buyer's VAT identifier (BT-48) or legal registration identifier (BT-47)",
    ja: "売り手の VAT 識別番号 (BT-31) または税務登録番号 (BT-32) と、買い手の VAT 識別番号 (BT-48) または法人登録番号 (BT-47) が必要です",
  },
  "intra-community": {
    en: "the seller's VAT identifier (BT-31) and the buyer's VAT identifier (BT-48)",
    ja: "売り手の VAT 識別番号 (BT-31) と買い手の VAT 識別番号 (BT-48) が必要です",
  },
  none: {
    en: "neither the seller's nor the buyer's VAT identifier (BT-31, BT-48)",
    ja: "売り手・買い手の VAT 識別番号 (BT-31、BT-48) は記載できません",
  },
};

/** Which identifiers each requirement finds: whether the seller's side and the buyer's side meet it. */
const IDS_MET: Record<CategoryFamily["ids"], (has: Record<PartyId, boolean>) => { seller: boolean; buyer: boolean }> = {
  "seller-vat-or-tax": (has) => ({ seller: has.sellerVat || has.sellerTax, buyer: true }),
  "seller-vat": (has) => ({ seller: has.sellerVat, buyer: true }),
  "reverse-charge": (has) => ({ seller: has.sellerVat || has.sellerTax, buyer: has.buyerVat || has.buyerLegal }),
  "intra-community": (has) => ({ seller: has.sellerVat, buyer: has.buyerVat }),
  none: (has) => ({ seller: !has.sellerVat, buyer: !has.buyerVat }),
};
type PartyId = "sellerVat" | "sellerTax" | "buyerVat" | "buyerLegal";

/** Where the parties' identifiers break the family's requirement (empty when they meet it). */
function identifierBreaches({ model }: RuleInput, ids: CategoryFamily["ids"]): Breach[] {
  const met = IDS_MET[ids]({
    sellerVat: !isBlank(model.seller?.vatId),
    sellerTax: !isBlank(model.seller?.taxRegistrationId),
    buyerVat: !isBlank(model.buyer?.vatId),
    buyerLegal: !isBlank(model.buyer?.legalId),
  });
  return [...(met.seller ? [] : [{ path: "seller.vatId" }]), ...(met.buyer ? [] : [{ path: "buyer.vatId" }])];
}

function identifierRule(family: CategoryFamily, kind: Kind): EinvoiceRule {
  const text = IDS_TEXT[family.ids];
  const en = family.ids === "none" ? `may carry ${text.en}` : `needs ${text.en}`;
  return {
    id: ruleId(family, 2 + kind.offset),
    path:
      family.ids === "seller-vat-or-tax" || family.ids === "seller-vat" ? "seller.vatId" : "seller.vatId, buyer.vatId",
    message: {
      en: `An invoice with a ${kind.name.en} in ${label(family, "en")} ${en}.`,
      ja: `${label(family, "ja")}の${kind.name.ja}がある請求書には、${text.ja}。`,
    },
    check: (input) => (itemsOf(input, family, kind).length > 0 ? identifierBreaches(input, family.ids) : []),
  };
}

const RATE_TEXT: Record<CategoryFamily["rate"], Bilingual> = {
  positive: { en: "must be greater than zero", ja: "は 0 より大きくなければなりません" },
  zero: { en: "must be 0", ja: "は 0 でなければなりません" },
  "zero-or-more": { en: "must be 0 or greater", ja: "は 0 以上でなければなりません" },
  none: { en: "must be left out", ja: "は指定できません" },
};

function rateBreaks(rate: number | undefined, rule: CategoryFamily["rate"]): boolean {
  if (rule === "none") return rate !== undefined;
  if (rate === undefined) return true;
  return rule === "positive" ? rate <= 0 : rule === "zero" ? rate !== 0 : rate < 0;
}

function rateRule(family: CategoryFamily, kind: Kind): EinvoiceRule {
  const text = RATE_TEXT[family.rate];
  return {
    id: ruleId(family, 5 + kind.offset),
    path: `${kind.list}[].vat.rate`,
    message: {
      en: `The VAT rate (${kind.rateTerm}) of a ${kind.name.en} in ${label(family, "en")} ${text.en}.`,
      ja: `${label(family, "ja")}の${kind.name.ja}の税率 (${kind.rateTerm}) ${text.ja}。`,
    },
    *check(input) {
      for (const item of itemsOf(input, family, kind)) {
        if (rateBreaks(item.vat?.rate, family.rate)) yield { path: `${item.path}.vat.rate` };
      }
    },
  };
}

function reasonRule(family: CategoryFamily): EinvoiceRule {
  const path = `vatExemptionReasons.${family.category}`;
  const required = family.reason === "required";
  return {
    id: ruleId(family, 10),
    path,
    message: required
      ? {
          en: `A VAT breakdown in ${label(family, "en")} needs its exemption reason (BT-120): set ${path}.`,
          ja: `${label(family, "ja")}の VAT 内訳には免税理由 (BT-120) が必要です。${path} を指定してください。`,
        }
      : {
          en: `A VAT breakdown in ${label(family, "en")} must not have an exemption reason (BT-120): remove ${path}.`,
          ja: `${label(family, "ja")}の VAT 内訳には免税理由 (BT-120) を記載できません。${path} を削除してください。`,
        },
    check: ({ model, itemsByCategory }) => {
      if (!itemsByCategory.has(family.category)) return [];
      const given = !isBlank(model.vatExemptionReasons?.[family.category]);
      return given === required ? [] : [{ path }];
    },
  };
}

/** BR-O-12…14: an invoice with items not subject to VAT has no item of another category. */
function onlyNotSubjectRule(kind: Kind): EinvoiceRule {
  return {
    id: `BR-O-${12 + kind.offset}`,
    path: `${kind.list}[].vat.category`,
    message: {
      en: `An invoice with items not subject to VAT (category O) may not have a ${kind.name.en} in another VAT category.`,
      ja: `不課税（VAT 区分 O）の項目がある請求書には、他の VAT 区分の${kind.name.ja}を含められません。`,
    },
    *check({ items, itemsByCategory }) {
      if (!itemsByCategory.has("O")) return;
      for (const item of items) {
        if (item.kind === kind.kind && item.vat && item.vat.category !== "O")
          yield { path: `${item.path}.vat.category` };
      }
    },
  };
}

/** Every VAT category rule, family by family. */
export const vatCategoryRules: readonly EinvoiceRule[] = [
  ...FAMILIES.flatMap((family) => [
    ...KINDS.map((kind) => identifierRule(family, kind)),
    ...KINDS.map((kind) => rateRule(family, kind)),
    reasonRule(family),
  ]),
  ...KINDS.map(onlyNotSubjectRule),
];
