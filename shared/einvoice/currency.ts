/**
 * Minor units of ISO 4217 currencies and the rounding of amounts to them. Most currencies have
 * two digits after the decimal point; the table lists the others.
 */
import { type Decimal, round, toDecimal, toNumber } from "./decimal.ts";

/** Currencies whose minor unit is not two digits (ISO 4217, current list). */
const MINOR_DIGITS: ReadonlyMap<string, number> = new Map(
  Object.entries({
    // No minor unit in use.
    BIF: 0,
    CLP: 0,
    DJF: 0,
    GNF: 0,
    ISK: 0,
    JPY: 0,
    KMF: 0,
    KRW: 0,
    PYG: 0,
    RWF: 0,
    UGX: 0,
    UYI: 0,
    VND: 0,
    VUV: 0,
    XAF: 0,
    XOF: 0,
    XPF: 0,
    // Three digits (fils, baisa, millimes).
    BHD: 3,
    IQD: 3,
    JOD: 3,
    KWD: 3,
    LYD: 3,
    OMR: 3,
    TND: 3,
    // Units of account with four digits.
    CLF: 4,
    UYW: 4,
  }),
);

/** Digits after the decimal point of a currency's minor unit (EUR 2, JPY 0, BHD 3); 2 when unknown. */
export function currencyMinorDigits(currency: string | undefined): number {
  return MINOR_DIGITS.get(currency ?? "") ?? 2;
}

/**
 * EN 16931 allows at most two decimals in any amount (the BR-DEC rules), so amounts are
 * rounded to the currency's minor unit but never to more than two digits: a BHD invoice
 * carries amounts in tens of fils. See README.md#computed-values.
 */
export const MAX_AMOUNT_DIGITS = 2;

/** The digits an invoice in `currency` rounds its amounts to. */
export function amountDigits(currency: string | undefined): number {
  return Math.min(currencyMinorDigits(currency), MAX_AMOUNT_DIGITS);
}

/**
 * `value` rounded to `digits` decimals, half away from zero, computed exactly:
 * `roundHalfAway(1.005, 2)` is 1.01 and `roundHalfAway(-2.5, 0)` is −3.
 */
export function roundHalfAway(value: number | string | Decimal, digits: number): number {
  const exact = typeof value === "object" ? value : toDecimal(value);
  return toNumber(round(exact, digits));
}
