import type { Language } from "#shared/errors/language.ts";
import { type Html, htmlTag } from "#shared/html/html.ts";
import { fill } from "#shared/i18n/texts.ts";
import { scopeText, screenText } from "./screen-text.ts";

/** The auth screens keep numeric references (`&#60;`), as `test/unit/identity.test.ts` pins them. */
const html = htmlTag("numeric");

const STYLE = html`<style>
body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.8rem 0 .2rem}
input,select{width:100%;padding:.4rem;box-sizing:border-box}button{margin:1rem .5rem 0 0;padding:.5rem 1.2rem}.error{color:#b00020}
</style>`;

function page(lang: Language, title: string, body: Html): string {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${STYLE}
</head>
<body>
<h1>${title}</h1>
${body}
</body>
</html>`.text;
}

/** The login form: `<form method="post">` with `email` and `password` (any client can drive it). */
export function loginPage(
  lang: Language,
  opts: { action: string; email?: string; error?: "wrong" | "limited" },
): string {
  const t = screenText[lang];
  const error = opts.error
    ? html`<p class="error" role="alert">${opts.error === "wrong" ? t.wrongCredentials : t.tooManyAttempts}</p>`
    : "";
  return page(
    lang,
    t.loginTitle,
    html`${error}
<form method="post" action="${opts.action}">
<label for="email">${t.email}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${opts.email}">
<label for="password">${t.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">${t.signIn}</button>
</form>`,
  );
}

export interface ConsentView {
  action: string;
  clientName: string;
  email: string;
  scopes: string[];
  workspaces: { id: string; name: string; role: string }[];
  error?: boolean;
}

/** The consent form: client name, requested scopes, `<select name="workspaceId">`, allow/deny buttons named `decision`. */
export function consentPage(lang: Language, view: ConsentView): string {
  const t = screenText[lang];
  const scopes = view.scopes.map((s) => html`<li><code>${s}</code> ${scopeText[lang][s] ?? ""}</li>`);
  const options = view.workspaces.map((w) => html`<option value="${w.id}">${w.name} (${w.role})</option>`);
  const choice = view.workspaces.length
    ? html`<label for="workspaceId">${t.workspace}</label>
<select id="workspaceId" name="workspaceId" required>${options}</select>`
    : html`<p class="error">${t.noWorkspace}</p>`;
  const error = view.error ? html`<p class="error" role="alert">${t.chooseWorkspace}</p>` : "";
  const allow = view.workspaces.length
    ? html`<button type="submit" name="decision" value="allow">${t.allow}</button>`
    : "";
  return page(
    lang,
    t.consentTitle,
    html`<p>${fill(t.signedInAs, { email: view.email })}</p>
<p>${fill(t.asks, { client: view.clientName })}</p>
<ul>${scopes}</ul>
${error}
<form method="post" action="${view.action}">
${choice}
${allow}
<button type="submit" name="decision" value="deny">${t.deny}</button>
</form>`,
  );
}

/** A lost or expired interaction (400): the user starts again from the application. */
export function expiredPage(lang: Language): string {
  return html`<!doctype html><meta charset="utf-8"><title>400</title><p>${screenText[lang].expired}</p>`.text;
}

/** A short English page for a refused interaction request (no language is known yet). */
export function refusalPage(status: number, message: string): string {
  return html`<!doctype html><title>${status}</title><p>${message}</p>`.text;
}

/** oidc-provider's error page (`renderError`): the protocol error and its description, escaped. */
export function providerErrorPage(error: string, description: string | undefined): string {
  return html`<!doctype html><meta charset="utf-8"><title>${error}</title><h1>${error}</h1><p>${description}</p>`.text;
}
