import { errorDocs } from "#shared/errors/error-doc-entries.ts";
import { catalogue, type ErrorCode } from "#shared/errors/catalogue.ts";
import { html } from "#shared/html/html.ts";
import type { SiteIdentity } from "../identity.ts";
import { withCode } from "../page-parts.ts";
import { page } from "../site-edge.ts";
import type { PageHandler } from "../site-types.ts";
import { t } from "../strings.ts";

/** Message templates show their placeholders as `<name>`. */
const placeholders = (message: string) => message.replace(/\{(\w+)\}/g, "<$1>");

/**
 * `/docs/errors` and `/ja/docs/errors`: one section per catalogue code,
 * its id the code in lowercase, exactly the anchor of every `docsUrl`.
 */
export const errorDocsPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const s = t(req.lang);
    const sections = errorDocs().map(
      (doc) => html`<section class="code-doc" id="${doc.anchor}" aria-labelledby="h-${doc.anchor}">
<h2 id="h-${doc.anchor}"><a href="#${doc.anchor}">${doc.code}</a></h2>
<dl class="facts">
  <dt>${s.docsStatus}</dt><dd>${doc.status ?? s.docsNotHttp}</dd>
  <dt>${s.docsMessage}</dt><dd>${placeholders(catalogue[doc.code as ErrorCode][req.lang])}</dd>
  <dt>${s.docsWhen}</dt><dd>${withCode(placeholders(doc.when[req.lang]))}</dd>
  <dt>${s.docsTodo}</dt><dd>${withCode(doc.todo[req.lang])}</dd>
</dl>
</section>`,
    );
    const links = errorDocs().map((d) => html`<li><a href="#${d.anchor}"><code>${d.code}</code></a></li>`);
    const body = html`<p>${withCode(s.docsIntro)}</p>
<nav aria-label="${s.docsTitle}"><ul>${links}</ul></nav>
${sections}`;
    return {
      status: 200,
      page: page(req, identity, false, s.docsTitle, body),
      headers: { "Cache-Control": "public, max-age=300" },
    };
  };
