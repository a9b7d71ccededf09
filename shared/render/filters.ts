import type { Liquid } from "liquidjs";

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

/** Filters Platen adds to LiquidJS's built-ins, for every design. */
export function registerPlatenFilters(engine: Liquid): Liquid {
  engine.registerFilter("delimit", delimit);
  return engine;
}
