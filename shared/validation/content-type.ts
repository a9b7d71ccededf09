/** `application/json`, or a `+json` type such as `application/merge-patch+json`; parameters allowed. */
const JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/**
 * Whether a request's Content-Type says JSON. The management and design APIs refuse a JSON
 * text under any other type (`text/plain`, a form type, none): those are the types a
 * cross-site form or script can send without a CORS preflight.
 */
export const isJsonContentType = (contentType: string | undefined): boolean => JSON_TYPE.test(contentType ?? "");
