import type { Language } from "#shared/errors/language.ts";
import { type Html, html } from "#shared/html/html.ts";
import { issueCsrfToken, verifyCsrfToken } from "#shared/site/csrf.ts";
import { siteSecret } from "#shared/site/site-secret.ts";
import { nowSeconds } from "./file-visit.ts";

/** A CSRF token for this user (`shared/site/csrf.ts`: bound to the user, expiring). */
export const csrfToken = async (userId: string): Promise<string> =>
  issueCsrfToken(await siteSecret(), userId, nowSeconds());

/** The hidden CSRF field of every logged-in form. */
export const csrfField = async (userId: string): Promise<Html> =>
  html`<input type="hidden" name="csrf" value="${await csrfToken(userId)}">`;

/** Whether a posted form carries a CSRF token {@link csrfField} issued to this user and still valid. */
export const csrfAccepted = async (userId: string, form: URLSearchParams): Promise<boolean> =>
  verifyCsrfToken(await siteSecret(), userId, form.get("csrf"), nowSeconds());

/**
 * The sign-out button's token: the same signed, expiring token as {@link csrfField}, bound to the session
 * cookie rather than the user, because the page shell knows only the cookie (no session read for it). Another
 * site can neither read the cookie nor our pages, so it cannot forge a sign-out. Undefined without a cookie.
 */
export async function signOutToken(sessionCookie: string | undefined): Promise<string | undefined> {
  if (!sessionCookie) return undefined;
  return issueCsrfToken(await siteSecret(), signOutSubject(sessionCookie), nowSeconds());
}

/** Whether a sign-out form carries {@link signOutToken} of this very session cookie, still valid. */
export const signOutAccepted = async (sessionCookie: string, form: URLSearchParams): Promise<boolean> =>
  verifyCsrfToken(await siteSecret(), signOutSubject(sessionCookie), form.get(SIGN_OUT_FIELD), nowSeconds());

/** The sign-out form's field: not `csrf`, which the page's own forms carry (bound to the user). */
export const SIGN_OUT_FIELD = "logout_csrf";
const signOutSubject = (sessionCookie: string) => `sign-out\n${sessionCookie}`;

/** `2026-11-24T05:30:12.345Z` → `2026-11-24 05:30:12 UTC` (the same for every reader). */
export const formatTime = (iso: string | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : "–");

/** A `<time>` element: the machine-readable instant, shown as {@link formatTime} writes it. */
export const timeElement = (iso: string) => html`<time datetime="${iso}">${formatTime(iso)}</time>`;

/** An error code linked to its entry on the error docs page (the anchor every `docsUrl` uses). */
export const errorCodeLink = (lang: Language, code: string) =>
  html`<a href="${lang === "ja" ? "/ja" : ""}/docs/errors#${code.toLowerCase()}"><code>${code}</code></a>`;

/** `like `this`` → text with `<code>` spans, every part escaped (the docs pages' texts and descriptions). */
export function withCode(text: string): Html[] {
  return text.split("`").map((part, i) => (i % 2 ? html`<code>${part}</code>` : html`${part}`));
}

/** A table with one header row of column headings (`scope="col"`), its rows given as markup. */
export function dataTable(
  columns: readonly string[],
  rows: Html | readonly Html[],
  options: { id?: string; caption?: Html | string } = {},
): Html {
  const id = options.id ? html` id="${options.id}"` : "";
  const caption =
    options.caption === undefined
      ? ""
      : html`
<caption class="muted">${options.caption}</caption>`;
  return html`<table${id}>${caption}
<thead>
  <tr>
${columns.map(
  (column) => html`    <th scope="col">${column}</th>
`,
)}  </tr>
</thead>
<tbody>${rows}</tbody>
</table>`;
}
