/**
 * Exact decimal arithmetic for invoice amounts: a value is an integer of units and a scale
 * (`12.35` is 1235 at scale 2), held in a BigInt, so sums and products carry no binary
 * floating-point error (`0.1 + 0.2` is `0.3`, `1.005` rounds to `1.01`).
 *
 * A JSON number enters as the decimal it prints as (`String(0.1)` is `"0.1"`): that is the
 * number the mapping meant, and the shortest round-trip form of a double.
 */

/** `units / 10^scale`. */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

export const ZERO: Decimal = { units: 0n, scale: 0 };

const DECIMAL_TEXT = /^([+-]?)(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;

/** Powers of ten, computed once: amounts rarely need more than a few dozen digits. */
const POWERS = Array.from({ length: 64 }, (_, n) => 10n ** BigInt(n));
const pow10 = (n: number): bigint => POWERS[n] ?? 10n ** BigInt(n);

/**
 * The exact decimal of a finite number or of a decimal string (`"12.50"`, `"-3"`, `"1e-7"`).
 * Throws on anything else: callers pass values the model's schema has already checked.
 */
export function toDecimal(value: number | string): Decimal {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError(`not a finite decimal: ${value}`);
    // Fast paths for the common shapes (an invoice of thousands of lines parses two numbers a line).
    if (Number.isSafeInteger(value)) return { units: BigInt(value), scale: 0 };
    const text = String(value);
    const dot = text.indexOf(".");
    if (dot > 0 && !text.includes("e")) {
      return { units: BigInt(text.slice(0, dot) + text.slice(dot + 1)), scale: text.length - dot - 1 };
    }
  }
  return parseDecimalText(typeof value === "number" ? String(value) : value.trim());
}

function parseDecimalText(text: string): Decimal {
  const match = DECIMAL_TEXT.exec(text);
  if (!match) throw new RangeError(`not a finite decimal: ${text}`);
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  const digits = BigInt(`${whole}${fraction}`);
  const units = sign === "-" ? -digits : digits;
  const scale = fraction.length - Number(exponent);
  return scale >= 0 ? { units, scale } : { units: units * pow10(-scale), scale: 0 };
}

/** `value` at a larger scale (same value, more digits). */
function rescale(value: Decimal, scale: number): bigint {
  return scale === value.scale ? value.units : value.units * pow10(scale - value.scale);
}

export function add(a: Decimal, b: Decimal): Decimal {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function subtract(a: Decimal, b: Decimal): Decimal {
  return add(a, negate(b));
}

export const negate = (a: Decimal): Decimal => ({ units: -a.units, scale: a.scale });

export function multiply(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

/** `a / 10^n`, exactly (a percentage is a shift by two). */
export const shift = (a: Decimal, n: number): Decimal => ({ units: a.units, scale: a.scale + n });

/** The sum of many values, at the largest scale among them. */
export function sum(values: Iterable<Decimal>): Decimal {
  let total = ZERO;
  for (const value of values) total = add(total, value);
  return total;
}

/**
 * `value` rounded to `digits` decimals, half away from zero (commercial rounding:
 * 2.345 → 2.35, −2.345 → −2.35).
 */
export function round(value: Decimal, digits: number): Decimal {
  if (value.scale <= digits) return { units: rescale(value, digits), scale: digits };
  const divisor = pow10(value.scale - digits);
  const quotient = value.units / divisor; // BigInt division truncates toward zero
  const remainder = value.units % divisor;
  const away = 2n * (remainder < 0n ? -remainder : remainder) >= divisor;
  const sign = value.units < 0n ? -1n : 1n;
  return { units: away ? quotient + sign : quotient, scale: digits };
}

/** −1, 0 or 1 as `a` is less than, equal to or greater than `b`. */
export function compare(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const [x, y] = [rescale(a, scale), rescale(b, scale)];
  return x < y ? -1 : x > y ? 1 : 0;
}

export const isZero = (a: Decimal): boolean => a.units === 0n;

/** Digits after the decimal point once trailing zeros are dropped (`12.50` → 1, `3` → 0). */
export function decimalPlaces(value: Decimal): number {
  let { units, scale } = value;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return scale;
}

/** Plain decimal notation, never an exponent (`-0.05`, `1200`, `12.50` at scale 2). */
export function formatDecimal(value: Decimal): string {
  const negative = value.units < 0n;
  const digits = (negative ? -value.units : value.units).toString().padStart(value.scale + 1, "0");
  const whole = digits.slice(0, digits.length - value.scale);
  const fraction = value.scale > 0 ? `.${digits.slice(digits.length - value.scale)}` : "";
  return `${negative ? "-" : ""}${whole}${fraction}`;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The nearest number: exact for amounts of up to 15 significant digits. Dividing two exactly
 * held integers rounds correctly, so it is the number the decimal's text parses to.
 */
export function toNumber(value: Decimal): number {
  const small = value.units <= MAX_SAFE && value.units >= -MAX_SAFE && value.scale <= 22;
  return small ? Number(value.units) / 10 ** value.scale : Number(formatDecimal(value));
}
