import { type Liquid, toValue } from "liquidjs";
import { BoundedCache, MiB, textBytes } from "#shared/bounded-cache.ts";
import { barcodeFilter } from "./barcode.ts";
import { registrationNumber, taxByRateFilter } from "./invoice-filters.ts";

/**
 * `delimit`: thousands separators for numbers (1234567.5 → "1,234,567.5", -3000 →
 * "-3,000"). Invoices need it on every amount, and doing it in Liquid itself costs a
 * quadratic loop per document. Non-numbers pass through unchanged.
 */
export function delimit(value: unknown, separator = ","): unknown {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isFinite(n)) return value;
  const [whole, fraction] = String(Math.abs(n)).split(".");
  const grouped = (whole ?? "").replace(/\B(?=(\d{3})+(?!\d))/g, String(separator));
  return `${n < 0 ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}

/**
 * `amount`: a number with a fixed count of decimals and thousands separators (1234.5 | amount: 2 →
 * "1,234.50"; JPY's `einvoice.minorDigits` is 0). For the amounts of an invoice, which `delimit` prints as
 * they are (30.3). Non-numbers pass through unchanged.
 */
export function amount(value: unknown, digits: unknown = 2, separator = ","): unknown {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  const places = Number(digits);
  if (typeof n !== "number" || !Number.isFinite(n) || !Number.isInteger(places) || places < 0 || places > 6)
    return value;
  const [whole, fraction] = Math.abs(n).toFixed(places).split(".");
  const grouped = (whole ?? "").replace(/\B(?=(\d{3})+(?!\d))/g, String(separator));
  const negative = n < 0 && Number(Math.abs(n).toFixed(places)) !== 0;
  return `${negative ? "-" : ""}${grouped}${fraction ? `.${fraction}` : ""}`;
}

const zoneFormats = new BoundedCache<string, Intl.DateTimeFormat>({ maxBytes: 1 * MiB, maxEntries: 64 });
/** About what one Intl.DateTimeFormat holds besides its zone's name. */
const FORMAT_BYTES = 2048;

/**
 * Minutes to add to local time in `zone` to get UTC at `at` (the sign of
 * Date#getTimezoneOffset, which LiquidJS takes as a numeric time zone), or undefined when
 * the zone or the instant is not valid. One cached Intl formatter per zone (none for UTC).
 */
export function zoneOffsetMinutes(zone: string, at: number): number | undefined {
  if (!Number.isFinite(at)) return undefined;
  // UTC needs no formatter: the first Intl.DateTimeFormat of a process loads ICU's date
  // data (~15 ms of a cold start's CPU), and a document dated in UTC need not pay it.
  if (zone === "UTC") return 0;
  let format = zoneFormats.get(zone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat("en-US", {
        timeZone: zone,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      return undefined; // an unknown zone: LiquidJS reports it as it always did
    }
    zoneFormats.set(zone, format, textBytes(zone) + FORMAT_BYTES);
  }
  const part = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, Number(p.value)]));
  const localAsUtc = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return (Math.floor(at / 1000) * 1000 - localAsUtc) / 60_000;
}

/** The instant LiquidJS's `date` filter reads from its input (see its parseDate). */
function instantOf(value: unknown): number {
  if (value === "now" || value === "today") return Date.now();
  if (typeof value === "number") return value * 1000;
  if (typeof value === "string" && /^\d+$/.test(value)) return Number(value) * 1000;
  return new Date(value as string).getTime();
}

/** Filters Platen adds to LiquidJS's built-ins, for every design. */
export function registerPlatenFilters(engine: Liquid): Liquid {
  engine.registerFilter("delimit", delimit);
  engine.registerFilter("amount", amount);
  // Markup of our own (the value is escaped inside it): not escaped again as output.
  engine.registerFilter("barcode", { handler: barcodeFilter, raw: true });
  engine.registerFilter("tax_by_rate", taxByRateFilter);
  engine.registerFilter("registration_number", registrationNumber);
  // `date: "…", "Asia/Tokyo"`: LiquidJS resolves a zone name with two toLocaleString
  // calls (a new Intl formatter each) per date; the same offset from a cached formatter
  // costs a fraction. `%Z` prints the zone's name, so it keeps the name.
  const builtin = engine.filters.date;
  const builtinDate = (typeof builtin === "function" ? builtin : builtin?.handler) as
    | ((...args: unknown[]) => unknown)
    | undefined;
  if (!builtinDate) throw new Error("LiquidJS has no date filter to wrap");
  engine.registerFilter("date", function (this: unknown, value: unknown, format?: unknown, zone?: unknown) {
    const fmt = toValue(format);
    const offset =
      typeof zone === "string" && !(typeof fmt === "string" && fmt.includes("%Z"))
        ? zoneOffsetMinutes(zone, instantOf(toValue(value)))
        : undefined;
    return builtinDate.call(this, value, format, offset ?? zone);
  });
  return engine;
}
