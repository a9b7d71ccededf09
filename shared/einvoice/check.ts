/**
 * The one entry point of the e-invoice model: shape check, business rules, computation.
 * `checkInvoice` either hands out the computed invoice the XML writers and the template read,
 * or says everything that is wrong, path by path, in English and Japanese.
 */
import type * as z from "zod";
import { type Bilingual, fill } from "#shared/i18n/texts.ts";
import { dottedPath } from "#shared/validation/zod-error.ts";
import { issueText } from "#shared/validation/zod-messages.ts";
import { computeInvoice } from "./compute.ts";
import { type ComputedInvoice, EINVOICE_FORMATS, type EinvoiceFormat, invoiceModelSchema } from "./model.ts";
import { type EinvoiceRule, type RuleInput, vatItems } from "./rules.ts";
import { allowanceChargeRules, conditionRules, headerRules, lineRules } from "./rules-core.ts";
import { typeCodeRules, xrechnungRules } from "./rules-formats.ts";
import { peppolRules } from "./rules-peppol.ts";
import { decimalRules, sumRules } from "./rules-totals.ts";
import { vatCategoryRules } from "./rules-vat.ts";

/** One thing wrong with an invoice: where (a dotted model path), which rule, and what to do. */
export interface EinvoiceViolation {
  /** `lines.3.quantity`; empty for the invoice as a whole. */
  readonly path: string;
  /** The rule's id (`BR-06`, `BR-DE-15`), or `MODEL` for a value of the wrong shape. */
  readonly rule: string;
  readonly message: Bilingual;
}

export type EinvoiceCheck =
  | { readonly ok: true; readonly invoice: ComputedInvoice }
  | {
      readonly ok: false;
      readonly violations: readonly EinvoiceViolation[];
      /** How many more violations were found than `violations` holds (see MAX_VIOLATIONS). */
      readonly omitted: number;
    };

/** A huge bad invoice answers with its first violations, not thousands of them. */
export const MAX_VIOLATIONS = 50;

/**
 * Every rule, in the order violations are reported: the invoice's own terms, its lines,
 * allowances and charges, VAT, the sums and decimals, then the format's rules.
 */
export const EINVOICE_RULES: readonly EinvoiceRule[] = [
  ...headerRules,
  ...typeCodeRules,
  ...lineRules,
  ...allowanceChargeRules,
  ...vatCategoryRules,
  ...conditionRules,
  ...sumRules,
  ...decimalRules,
  ...xrechnungRules,
  ...peppolRules,
];

/**
 * Checks what a design's `einvoice.liquid` rendered (parsed JSON) as an invoice of `format`.
 * A value of the wrong shape is reported by the schema (rule `MODEL`) and stops there; a
 * well-shaped model is computed and then checked against every rule of the format.
 */
export function checkInvoice(input: unknown, format: EinvoiceFormat): EinvoiceCheck {
  const parsed = invoiceModelSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) return refused(parsed.error.issues.flatMap(splitUnknownKeys).map(modelViolation));

  const model = parsed.data;
  const computed = computeInvoice(model);
  const ruleInput: RuleInput = { model, format, computed, ...vatItems(model) };
  const violations: EinvoiceViolation[] = [];
  for (const rule of EINVOICE_RULES) {
    if (rule.formats && !rule.formats.includes(format)) continue;
    for (const { path, vars } of rule.check(ruleInput)) {
      const message = vars
        ? { en: fill<string>(rule.message.en, vars), ja: fill<string>(rule.message.ja, vars) }
        : rule.message;
      violations.push({ path, rule: rule.id, message });
    }
  }
  return violations.length > 0 ? refused(violations) : { ok: true, invoice: computed };
}

function refused(violations: EinvoiceViolation[]): EinvoiceCheck {
  return {
    ok: false,
    violations: violations.slice(0, MAX_VIOLATIONS),
    omitted: Math.max(0, violations.length - MAX_VIOLATIONS),
  };
}

/** The format a design names (`einvoice.format`), `zugferd` being Factur-X; undefined if unknown. */
export function parseEinvoiceFormat(name: string): EinvoiceFormat | undefined {
  const normalized = name.trim().toLowerCase();
  if (normalized === "zugferd") return "factur-x";
  return EINVOICE_FORMATS.find((format) => format === normalized);
}

type Issue = z.core.$ZodIssue;

/** The Japanese of the messages `model.ts` sets on its own checks. */
const SCHEMA_MESSAGES_JA: ReadonlyMap<string, string> = new Map(
  Object.entries({
    "must be a finite number": "有限の数値でなければなりません",
    "must be a decimal number": '小数の数値（例: "12.50"）でなければなりません',
    "must be an ISO 3166-1 alpha-2 code such as DE": "DE のような ISO 3166-1 alpha-2 の国コードでなければなりません",
    "must be a three-digit UNCL 1001 code": "3 桁の UNCL 1001 コードでなければなりません",
    "must be an ISO 4217 code such as EUR": "EUR のような ISO 4217 の通貨コードでなければなりません",
  }),
);

/** Every union of the model is a decimal (a number or a decimal string): zod only says "Invalid input". */
const DECIMAL_EXPECTED: Bilingual = {
  en: 'expected a number or a decimal string such as "12.50"',
  ja: '数値、または "12.50" のような小数の文字列が必要です',
};

function modelViolation(issue: Issue): EinvoiceViolation {
  return { path: dottedPath(issue.path), rule: "MODEL", message: modelMessage(issue) };
}

function modelMessage(issue: Issue): Bilingual {
  if (issue.code === "invalid_union") return DECIMAL_EXPECTED;
  const ownJa = SCHEMA_MESSAGES_JA.get(issue.message);
  if (ownJa !== undefined) return { en: issue.message, ja: ownJa };
  return issueText(issue);
}

/** One issue per unknown property, so each violation names its own path (`seller.colour`). */
function splitUnknownKeys(issue: Issue): Issue[] {
  if (issue.code !== "unrecognized_keys") return [issue];
  return issue.keys.map((key) => ({ ...issue, keys: [key], path: [...issue.path, key] }));
}
