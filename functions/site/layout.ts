import type { Language } from "#shared/errors/language.ts";
import { type Html, html } from "#shared/html/html.ts";
import { SIGN_OUT_FIELD } from "./page-parts.ts";
import { studioText } from "./studio/studio-text.ts";
import { t } from "./strings.ts";

export interface LayoutContext {
  lang: Language;
  /** Where the language switch leads (same page, other language). */
  switchHref: string;
  /** Logged-in visitors see no login link. */
  loggedIn: boolean;
  loginHref: string;
  /** The sign-out form's CSRF token (absent on pages rendered before the request was read). */
  signOutToken?: string;
  /**
   * A bundled script of the studio (studio/scripts.ts): only the pages served with the `studio`
   * header profile name one, as their CSP is the only one that allows `script-src 'self'`.
   */
  script?: string;
  /** The wide layout of the editor (editor and preview side by side). */
  wide?: boolean;
}

/**
 * The logout button of a logged-in visitor's navigation: a POST with a CSRF token (pages/login.ts refuses a
 * sign-out without it; the cross-site refusal alone misses browsers that send neither Origin nor Referer).
 */
const logoutItem = (label: string, token: string | undefined) => html`<li>
  <form class="inline" method="post" action="/logout">
    ${token ? html`<input type="hidden" name="${SIGN_OUT_FIELD}" value="${token}">` : ""}
    <button type="submit" class="secondary" id="logout">${label}</button>
  </form>
</li>`;

/** The login link of a visitor not logged in. */
const loginItem = (href: string, label: string) => html`<li>
  <a href="${href}" id="login">${label}</a>
</li>`;

/** The page shell: language, skip link, navigation, language switch, one `<main>`. */
export function layout(ctx: LayoutContext, title: string, body: Html): Html {
  const s = t(ctx.lang);
  const st = studioText(ctx.lang);
  const other: Language = ctx.lang === "ja" ? "en" : "ja";
  const docs = ctx.lang === "ja" ? "/ja/docs" : "/docs";
  return html`<!doctype html>
<html lang="${ctx.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title} – ${s.siteName}</title>
<link rel="stylesheet" href="/assets/site.css">
${ctx.script ? html`<script src="${ctx.script}" defer></script>` : ""}
</head>
<body>
<a class="skip" href="#main">${s.skipToContent}</a>
<header class="site">
<a class="brand" href="/">${s.siteName}</a>
<nav aria-label="${s.siteName}">
<ul>
  <li><a href="/designs">${st.navDesigns}</a></li>
  <li><a href="/templates">${st.navTemplates}</a></li>
  <li><a href="/output-history">${s.navHistory}</a></li>
  <li><a href="${ctx.lang === "ja" ? "/ja/records" : "/records"}">${s.navRecords}</a></li>
  <li><a href="/settings">${s.navSettings}</a></li>
  <li><a href="${docs}/errors">${s.navDocs}</a></li>
  <li><a href="${docs}/api">${s.navApiDocs}</a></li>
  <li>
    <a href="${ctx.switchHref}" hreflang="${other}" lang="${other}" aria-label="${s.languageSwitchLabel}">
      ${s.languageSwitch}
    </a>
  </li>
  ${ctx.loggedIn ? logoutItem(s.logOut, ctx.signOutToken) : loginItem(ctx.loginHref, s.logIn)}
</ul>
</nav>
</header>
<main id="main" tabindex="-1"${ctx.wide ? html` class="wide"` : ""}>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`;
}
