/**
 * The business rules Platen checks before it writes an e-invoice: each a named rule with the id
 * of its rule set (EN 16931, XRechnung, Peppol BIS), the model path it names and its message in
 * English and Japanese. README.md#what-is-checked lists them and what is not checked.
 */
import type { Bilingual } from "#shared/i18n/texts.ts";
import type { ComputedInvoice, EinvoiceFormat, InvoiceModel, VatCategory } from "./model.ts";

/** The VAT of a line, allowance or charge (BG-30, BT-95…96, BT-102…103). */
export type ItemVat = NonNullable<NonNullable<InvoiceModel["lines"]>[number]["vat"]>;

/** A line, document level allowance or charge, with where it sits in the model (`lines.3`). */
export interface VatItem {
  readonly kind: "line" | "allowance" | "charge";
  readonly path: string;
  readonly vat: ItemVat | undefined;
}

/** What a rule reads: the model, the format, what Platen computed, and the items by VAT category. */
export interface RuleInput {
  readonly model: InvoiceModel;
  readonly format: EinvoiceFormat;
  readonly computed: ComputedInvoice;
  readonly items: readonly VatItem[];
  readonly itemsByCategory: ReadonlyMap<VatCategory, readonly VatItem[]>;
}

/** One place where an invoice breaks a rule, with the values of the message's placeholders. */
export interface Breach {
  readonly path: string;
  readonly vars?: Readonly<Record<string, string | number>>;
}

export interface EinvoiceRule {
  /** The rule's id in its rule set: `BR-06`, `BR-S-05`, `BR-DE-15`, `PEPPOL-EN16931-R010`. */
  readonly id: string;
  /** The model path the rule names; `[]` stands for every index (`lines[].quantity`). */
  readonly path: string;
  /** The formats the rule applies to; every format when absent. */
  readonly formats?: readonly EinvoiceFormat[];
  /** What is wrong and how to put it right; `{name}` placeholders are filled from a breach's vars. */
  readonly message: Bilingual;
  /** Every breach, in model order. Linear in the size of the invoice. */
  readonly check: (input: RuleInput) => Iterable<Breach>;
}

/** A text that is absent, empty or only spaces: the writers leave it out, so it counts as absent. */
export const isBlank = (text: string | undefined): boolean => text === undefined || text.trim() === "";

/** A rule that a term be present: it fires at `path` when `value` is absent or blank. */
export function requiredTerm(
  id: string,
  path: string,
  message: Bilingual,
  value: (model: InvoiceModel) => unknown,
  options: { formats?: readonly EinvoiceFormat[]; when?: (model: InvoiceModel) => boolean } = {},
): EinvoiceRule {
  const absent = (v: unknown) => v === undefined || (typeof v === "string" && isBlank(v));
  return {
    id,
    path,
    message,
    ...(options.formats && { formats: options.formats }),
    check: ({ model }) => ((options.when?.(model) ?? true) && absent(value(model)) ? [{ path }] : []),
  };
}

type ListName = "lines" | "allowances" | "charges";
type ElementOf<L extends ListName> = NonNullable<InvoiceModel[L]>[number];

/**
 * A rule on each element of a list (`lines[].name`): it fires at `lines.3.name` for each
 * element `breaks` returns true for.
 */
export function eachElement<L extends ListName>(
  id: string,
  list: L,
  field: keyof ElementOf<L> & string,
  message: Bilingual,
  breaks: (element: ElementOf<L>) => boolean,
): EinvoiceRule {
  return {
    id,
    path: `${list}[].${field}`,
    message,
    *check({ model }) {
      const elements: readonly ElementOf<L>[] = model[list] ?? [];
      for (let i = 0; i < elements.length; i++) {
        if (breaks(elements[i]!)) yield { path: `${list}.${i}.${field}` };
      }
    },
  };
}

/** The lines, allowances and charges of a model, in that order, and grouped by VAT category. */
export function vatItems(model: InvoiceModel): Pick<RuleInput, "items" | "itemsByCategory"> {
  const items: VatItem[] = [
    ...(model.lines ?? []).map((l, i): VatItem => ({ kind: "line", path: `lines.${i}`, vat: l.vat })),
    ...(model.allowances ?? []).map((a, i): VatItem => ({ kind: "allowance", path: `allowances.${i}`, vat: a.vat })),
    ...(model.charges ?? []).map((c, i): VatItem => ({ kind: "charge", path: `charges.${i}`, vat: c.vat })),
  ];
  const itemsByCategory = new Map<VatCategory, VatItem[]>();
  for (const item of items) {
    if (!item.vat) continue;
    const list = itemsByCategory.get(item.vat.category);
    if (list) list.push(item);
    else itemsByCategory.set(item.vat.category, [item]);
  }
  return { items, itemsByCategory };
}
