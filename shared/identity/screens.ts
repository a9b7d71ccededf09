import type { Language } from "#shared/errors/language.ts";
import { scopeText, screenText } from "./screen-text.ts";

/** HTML-escapes text for element content and attribute values. */
export const esc = (value: unknown): string => String(value ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(lang: Language, title: string, body: string): string {
  return `<!doctype html>
<html lang="${lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem}label{display:block;margin:.8rem 0 .2rem}
input,select{width:100%;padding:.4rem;box-sizing:border-box}button{margin:1rem .5rem 0 0;padding:.5rem 1.2rem}.error{color:#b00020}</style>
</head><body><h1>${esc(title)}</h1>${body}</body></html>`;
}

/** The login form: `<form method="post">` with `email` and `password` (issue 12: any client can drive it). */
export function loginPage(
  lang: Language,
  opts: { action: string; email?: string; error?: "wrong" | "limited" },
): string {
  const t = screenText[lang];
  const error = opts.error
    ? `<p class="error" role="alert">${esc(opts.error === "wrong" ? t.wrongCredentials : t.tooManyAttempts)}</p>`
    : "";
  return page(
    lang,
    t.loginTitle,
    `${error}<form method="post" action="${esc(opts.action)}">
<label for="email">${esc(t.email)}</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(opts.email)}">
<label for="password">${esc(t.password)}</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">${esc(t.signIn)}</button></form>`,
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
  const scopes = view.scopes.map((s) => `<li><code>${esc(s)}</code> ${esc(scopeText[lang][s] ?? "")}</li>`).join("");
  const options = view.workspaces
    .map((w) => `<option value="${esc(w.id)}">${esc(w.name)} (${esc(w.role)})</option>`)
    .join("");
  const choice = view.workspaces.length
    ? `<label for="workspaceId">${esc(t.workspace)}</label><select id="workspaceId" name="workspaceId" required>${options}</select>`
    : `<p class="error">${esc(t.noWorkspace)}</p>`;
  const error = view.error ? `<p class="error" role="alert">${esc(t.chooseWorkspace)}</p>` : "";
  return page(
    lang,
    t.consentTitle,
    `<p>${esc(t.signedInAs(view.email))}</p><p>${esc(t.asks(view.clientName))}</p><ul>${scopes}</ul>${error}
<form method="post" action="${esc(view.action)}">${choice}
${view.workspaces.length ? `<button type="submit" name="decision" value="allow">${esc(t.allow)}</button>` : ""}
<button type="submit" name="decision" value="deny">${esc(t.deny)}</button></form>`,
  );
}
