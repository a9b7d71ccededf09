/**
 * Liquid helpers for Japanese qualified invoices (適格請求書), for every design:
 *
 * - `tax_by_rate`: `{% assign tax = 明細 | tax_by_rate: quantity: "数量", price: "単価", rate: "税率" %}`
 *   groups line amounts by tax rate and computes the consumption tax once per rate on the
 *   rate's total (the qualified-invoice rule: never per line). The result:
 *   `tax.rates` (highest rate first: `rate`, `base`, `tax`, `total`, `reduced`),
 *   `tax.subtotal`, `tax.tax`, `tax.total`.
 * - `registration_number`: `{{ 登録番号 | registration_number }}` checks a qualified invoice
 *   issuer's registration number (`T` + a 13-digit corporate number whose first digit is
 *   its check digit) and writes it normalised (`T` + 13 ASCII digits); a wrong one fails
 *   the document (TEMPLATE_FAILED naming the value).
 */

/** One rate's part of an invoice. */
export interface RateTotal {
  /** Percent, e.g. 10, 8, 0. */
  rate: number;
  /** Sum of the rate's line amounts (tax excluded), in yen. */
  base: number;
  /** Tax on `base`, rounded once. */
  tax: number;
  total: number;
  /** The reduced rate (8 %): such lines carry the ※ mark. */
  reduced: boolean;
}

export interface TaxByRate {
  rates: RateTotal[];
  subtotal: number;
  tax: number;
  total: number;
}

export type Rounding = "floor" | "round" | "ceil";

export interface TaxOptions {
  /** Item field names (defaults: the English names). */
  quantity?: string;
  price?: string;
  rate?: string;
  /** A field holding the line amount itself; when set, quantity and price are not read. */
  amount?: string;
  /** Rate of a line without one (default 10). */
  defaultRate?: number;
  /** How the tax of each rate is rounded to the yen (default floor, 切り捨て). */
  rounding?: Rounding;
}

const REDUCED_RATE = 8;
/** Amounts stay exact in doubles below this (the tax is computed as base × rate / 100). */
const MAX_AMOUNT = 2 ** 53 / 100;

/** Line amount: quantity × price rounded half up to the yen (or the item's own amount field). */
function lineAmount(item: Record<string, unknown>, options: TaxOptions): number {
  if (options.amount) return roundYen(numberOf(item[options.amount]));
  return roundYen(numberOf(item[options.quantity ?? "quantity"]) * numberOf(item[options.price ?? "price"]));
}

const numberOf = (value: unknown): number => {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) ? n : 0;
};

/** Half up, away from zero for credits; a product like 1.005 × 100 is first cut to 9 places. */
const roundYen = (n: number): number => Math.sign(n) * Math.round(Math.abs(Number(n.toFixed(9))));

function roundTax(base: number, rate: number, rounding: Rounding): number {
  // base × rate is an integer when rate is: divide once, round once.
  const exact = (base * rate) / 100;
  const cut = Number(exact.toFixed(9));
  if (rounding === "round") return Math.sign(cut) * Math.round(Math.abs(cut));
  return rounding === "ceil" ? Math.ceil(cut) : Math.floor(cut);
}

export function taxByRate(items: unknown, options: TaxOptions = {}): TaxByRate {
  const rounding = options.rounding ?? "floor";
  if (!["floor", "round", "ceil"].includes(rounding))
    throw new Error(`tax_by_rate: rounding must be floor, round or ceil, not "${String(rounding)}"`);
  const bases = new Map<number, number>();
  for (const item of Array.isArray(items) ? items : []) {
    if (!item || typeof item !== "object") continue;
    const row = item as Record<string, unknown>;
    const given = row[options.rate ?? "rate"];
    const rate = given === undefined || given === null || given === "" ? (options.defaultRate ?? 10) : numberOf(given);
    bases.set(rate, (bases.get(rate) ?? 0) + lineAmount(row, options));
  }
  const rates = [...bases.entries()]
    .sort(([a], [b]) => b - a)
    .map(([rate, base]): RateTotal => {
      if (Math.abs(base) > MAX_AMOUNT) throw new Error(`tax_by_rate: the ${rate}% total ${base} is too large`);
      const tax = roundTax(base, rate, rounding);
      return { rate, base, tax, total: base + tax, reduced: rate === REDUCED_RATE };
    });
  const subtotal = rates.reduce((sum, r) => sum + r.base, 0);
  const tax = rates.reduce((sum, r) => sum + r.tax, 0);
  return { rates, subtotal, tax, total: subtotal + tax };
}

/** The Liquid filter: keyword arguments arrive as `[name, value]` pairs. */
export function taxByRateFilter(items: unknown, ...args: unknown[]): TaxByRate {
  const named = Object.fromEntries(
    args.filter((a): a is [string, unknown] => Array.isArray(a) && a.length === 2 && typeof a[0] === "string"),
  );
  return taxByRate(items, {
    quantity: stringOr(named.quantity),
    price: stringOr(named.price),
    rate: stringOr(named.rate),
    amount: stringOr(named.amount),
    defaultRate: named.default_rate === undefined ? undefined : numberOf(named.default_rate),
    rounding: stringOr(named.rounding) as Rounding | undefined,
  });
}

const stringOr = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * The check digit of a 12-digit corporate number base (法人番号): 9 − (Σ Pn × Qn mod 9),
 * Pn the n-th digit from the right, Qn 1 for odd n and 2 for even n.
 */
export function corporateCheckDigit(base12: string): number {
  let sum = 0;
  for (let n = 1; n <= 12; n++) sum += Number(base12[12 - n]) * (n % 2 ? 1 : 2);
  return 9 - (sum % 9);
}

/** `T` + 13 digits with a right check digit, from forms people type: full-width, spaces, hyphens. */
export function registrationNumber(value: unknown): string {
  if (value === null || value === undefined || value === "") return "";
  const raw = String(value);
  const normal = raw
    .normalize("NFKC")
    .replace(/[\s\-‐−]/g, "")
    .toUpperCase();
  const shown = raw.length > 40 ? `${raw.slice(0, 40)}…` : raw;
  if (!/^T\d{13}$/.test(normal)) throw new Error(`registration number "${shown}" must be T followed by 13 digits`);
  if (Number(normal[1]) !== corporateCheckDigit(normal.slice(2)))
    throw new Error(`registration number "${shown}" has a wrong check digit`);
  return normal;
}
