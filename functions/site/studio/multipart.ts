/** One part of a `multipart/form-data` body: a field's text, or a file's bytes. */
export interface FormPart {
  name: string;
  filename?: string;
  body: Buffer;
}

/**
 * Reads a `multipart/form-data` body (the bundle upload form, which works without script):
 * each part's name, file name and bytes. Only what a browser's form sends is understood; a body
 * without the boundary gives no parts.
 */
export function multipartParts(contentType: string | undefined, body: Buffer | null): FormPart[] {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? "");
  if (!boundary || !body) return [];
  const delimiter = Buffer.from(`--${boundary[1] ?? boundary[2]}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  while (at !== -1) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    // Each part: CRLF, headers, a blank line, the bytes, CRLF before the next delimiter.
    const part = body.subarray(start + 2, next - 2);
    const split = part.indexOf("\r\n\r\n");
    if (split !== -1) {
      const headers = part.subarray(0, split).toString("utf8");
      const name = /name="([^"]*)"/i.exec(headers)?.[1];
      const filename = /filename="([^"]*)"/i.exec(headers)?.[1];
      if (name !== undefined)
        parts.push({ name, ...(filename !== undefined && { filename }), body: part.subarray(split + 4) });
    }
    at = next;
  }
  return parts;
}

/** The text fields of the parts, as a form's fields. */
export const partFields = (parts: FormPart[]) =>
  new URLSearchParams(parts.filter((p) => p.filename === undefined).map((p) => [p.name, p.body.toString("utf8")]));
