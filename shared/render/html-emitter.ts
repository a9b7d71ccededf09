import { type Emitter, toValue } from "liquidjs";

/** Thrown from inside Liquid's render when the output passes the limit; `renderHtml` reports it. */
export class HtmlLimitReached extends Error {
  constructor(limit: number) {
    super(`the template wrote more than ${limit} characters`);
    this.name = "HtmlLimitReached";
  }
}

/**
 * LiquidJS's plain string emitter plus a length check on every write, so a template that
 * loops out 100 MB stops at the limit, after a fraction of the time and memory. Block tags
 * (`for`, `if`, …) write through the same emitter, so nothing escapes the count.
 */
export class BoundedEmitter implements Emitter {
  buffer = "";

  constructor(private readonly maxChars: number) {}

  write(html: unknown): void {
    this.buffer += stringify(html);
    if (this.buffer.length > this.maxChars) throw new HtmlLimitReached(this.maxChars);
  }
}

/** LiquidJS's own `stringify` (not exported): drops and arrays flattened, nil as "". */
function stringify(value: unknown): string {
  const v: unknown = toValue(value);
  if (typeof v === "string") return v;
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(stringify).join("");
  return String(v);
}
