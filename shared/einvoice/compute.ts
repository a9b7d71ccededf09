/**
 * What Platen computes from the model: each line's net amount (BT-131), the VAT breakdown
 * (BG-23) and the document totals (BG-22), exactly and rounded to the currency's minor unit.
 * README.md#computed-values describes the rounding.
 */
import { amountDigits } from "./currency.ts";
import {
  add,
  type Decimal,
  multiply,
  negate,
  round,
  shift,
  subtract,
  sum,
  toDecimal,
  toNumber,
  ZERO,
} from "./decimal.ts";
import {
  type ComputedInvoice,
  type InvoiceModel,
  type InvoiceTotals,
  VAT_CATEGORIES,
  type VatBreakdown,
  type VatCategory,
} from "./model.ts";

type Vat = NonNullable<NonNullable<InvoiceModel["lines"]>[number]["vat"]>;

/** A line, allowance or charge as the breakdown sees it: its VAT and its signed amount. */
interface VatShare {
  readonly vat: Vat | undefined;
  readonly amount: Decimal;
}

/** An absent number counts as zero, so that compute never throws (see README.md#computed-values). */
const exact = (value: number | undefined): Decimal => (value === undefined ? ZERO : toDecimal(value));

/**
 * The model with its computed amounts. Total: an invoice that breaks the business rules
 * (a line without quantity, an allowance without VAT category) still computes, with absent
 * numbers as zero and items without a VAT category left out of the breakdown; `checkInvoice`
 * only hands out the result of an invoice that passed every rule.
 */
export function computeInvoice(model: InvoiceModel): ComputedInvoice {
  const digits = amountDigits(model.currency);
  const { lines: _lines, totals: _given, ...rest } = model;
  const [lines, allowances, charges] = [model.lines ?? [], model.allowances ?? [], model.charges ?? []];
  const nets = lines.map((line) => round(multiply(exact(line.quantity), exact(line.netPrice)), digits));
  const allowanceAmounts = allowances.map((allowance) => exact(allowance.amount));
  const chargeAmounts = charges.map((charge) => exact(charge.amount));

  const shares: VatShare[] = [
    ...lines.map((line, i) => ({ vat: line.vat, amount: nets[i]! })),
    ...allowances.map((allowance, i) => ({ vat: allowance.vat, amount: negate(allowanceAmounts[i]!) })),
    ...charges.map((charge, i) => ({ vat: charge.vat, amount: chargeAmounts[i]! })),
  ];
  const rows = breakdownRows(shares, digits);

  const lineTotal = sum(nets);
  const allowanceTotal = round(sum(allowanceAmounts), digits);
  const chargeTotal = round(sum(chargeAmounts), digits);
  const taxBasis = add(subtract(lineTotal, allowanceTotal), chargeTotal);
  const taxTotal = sum(rows.map((row) => row.tax));
  const grandTotal = add(taxBasis, taxTotal);
  const totals: InvoiceTotals = {
    lineTotal: toNumber(lineTotal),
    allowanceTotal: toNumber(allowanceTotal),
    chargeTotal: toNumber(chargeTotal),
    taxBasis: toNumber(taxBasis),
    taxTotal: toNumber(taxTotal),
    grandTotal: toNumber(grandTotal),
    duePayable: toNumber(grandTotal),
  };

  return {
    ...rest,
    lines: lines.map((line, i) => ({ ...line, netAmount: toNumber(nets[i]!) })),
    vatBreakdown: rows.map((row) => toBreakdown(row, model.vatExemptionReasons)),
    totals,
    minorDigits: digits,
  };
}

interface Row {
  readonly category: VatCategory;
  readonly rate: number | undefined;
  readonly taxable: Decimal;
  readonly tax: Decimal;
}

/**
 * One row per (category, rate): the taxable amount is the exact sum of its shares rounded,
 * and the tax is computed from that rounded amount and rounded once (BR-CO-17). Rows come
 * in the order of `VAT_CATEGORIES`, then by rate ascending, whatever the order of the lines.
 */
function breakdownRows(shares: readonly VatShare[], digits: number): Row[] {
  const groups = new Map<string, { vat: Vat; taxable: Decimal }>();
  for (const { vat, amount } of shares) {
    if (!vat) continue;
    const key = `${vat.category} ${vat.rate ?? ""}`;
    const group = groups.get(key);
    if (group) group.taxable = add(group.taxable, amount);
    else groups.set(key, { vat, taxable: amount });
  }
  const rows = [...groups.values()].map(({ vat, taxable }): Row => {
    const rounded = round(taxable, digits);
    const tax = round(shift(multiply(rounded, exact(vat.rate)), 2), digits);
    return { category: vat.category, rate: vat.rate, taxable: rounded, tax };
  });
  const order = (category: VatCategory) => VAT_CATEGORIES.indexOf(category);
  return rows.sort((a, b) => order(a.category) - order(b.category) || (a.rate ?? -1) - (b.rate ?? -1));
}

function toBreakdown(row: Row, reasons: InvoiceModel["vatExemptionReasons"]): VatBreakdown {
  const reason = reasons?.[row.category];
  return {
    category: row.category,
    ...(row.rate !== undefined && { rate: row.rate }),
    taxableAmount: toNumber(row.taxable),
    taxAmount: toNumber(row.tax),
    ...(reason !== undefined && { exemptionReason: reason }),
  };
}
