import { Readable } from "node:stream";
import { type AuditActor, recordAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { RECORD_TYPES } from "#shared/designs/bundle-schema.ts";
import type { Language } from "#shared/errors/language.ts";
import { detailMessage } from "#shared/errors/error-body.ts";
import { isPlatenError } from "#shared/errors/platen-error.ts";
import { contentDisposition, pdfFileName } from "#shared/generation/http/index.ts";
import { type Html, html } from "#shared/html/html.ts";
import { byLanguage, fill } from "#shared/i18n/texts.ts";
import {
  auditFilters,
  dynamoRecordStore,
  exportRecords,
  type KeptRecord,
  parseRecordQuery,
  RECORD_FILTERS,
  recordAmountText,
  recordPdfKey,
  recordsCsv,
  s3RecordPdfs,
  searchPage,
} from "#shared/records/index.ts";
import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import type { SiteIdentity } from "../identity.ts";
import { dataTable } from "../page-parts.ts";
import { notFound, page } from "../site-edge.ts";
import type { PageHandler, SiteRequest, SiteResult } from "../site-types.ts";
import { t } from "../strings.ts";
import { chosenWorkspace, requireUser, roleOf } from "../visitor.ts";

/** The records page's texts (shared/records/README.md#the-site-page). */
const texts = byLanguage({
  title: { en: "Search kept records", ja: "帳簿書類の検索" },
  intro: {
    en: "Every document of a design that keeps records, as it was delivered, searchable by date, amount and counterparty.",
    ja: "記録を保存するデザインで生成した書類を、送付したとおりに保存しています。取引年月日・金額・取引先で検索できます。",
  },
  retention: {
    en: "Records of this workspace are kept for {years} years and cannot be changed or deleted.",
    ja: "このワークスペースの記録は {years} 年間保存され、変更も削除もできません。",
  },
  type: { en: "Document type", ja: "書類の種類" },
  anyType: { en: "Any", ja: "すべて" },
  dateFrom: { en: "Date from", ja: "取引年月日（から）" },
  dateTo: { en: "Date to", ja: "取引年月日（まで）" },
  amountMin: { en: "Amount from", ja: "取引金額（以上）" },
  amountMax: { en: "Amount to", ja: "取引金額（以下）" },
  amountHint: {
    en: "Amounts in the currency's smallest unit: yen for JPY, cents for EUR and USD.",
    ja: "金額は通貨の最小単位で入力します（JPY は円、EUR・USD はセント）。",
  },
  currency: { en: "Currency", ja: "通貨" },
  counterparty: { en: "Counterparty (part of the name)", ja: "取引先（名称の一部）" },
  number: { en: "Document number", ja: "書類番号" },
  search: { en: "Search", ja: "検索" },
  export: { en: "Export as CSV", ja: "CSV で出力" },
  refused: { en: "The search was not run:", ja: "検索できませんでした:" },
  empty: { en: "No records match.", ja: "該当する記録はありません。" },
  next: { en: "Next records", ja: "次の記録" },
  first: { en: "First records", ja: "最初の記録" },
  date: { en: "Date", ja: "取引年月日" },
  amount: { en: "Amount", ja: "取引金額" },
  file: { en: "File (PDF)", ja: "ファイル（PDF）" },
  noWorkspace: { en: "You are not a member of any workspace.", ja: "どのワークスペースにも所属していません。" },
  invoice: { en: "Invoice", ja: "請求書" },
  quotation: { en: "Quotation", ja: "見積書" },
  "delivery-note": { en: "Delivery note", ja: "納品書" },
  order: { en: "Order", ja: "注文書" },
  receipt: { en: "Receipt", ja: "領収書" },
  contract: { en: "Contract", ja: "契約書" },
  other: { en: "Other", ja: "その他" },
});

const store = dynamoRecordStore();
const pdfs = s3RecordPdfs();

/** A signed-in visitor as the audit log names a reader of records. */
const siteReader = (userId: string): AuditActor => ({ via: "session", userId });

/** `/records` or `/ja/records`: the page keeps its language in its links. */
const base = (lang: Language) => (lang === "ja" ? "/ja/records" : "/records");

/** The query string of the visitor's filters (as typed), the workspace and any extra parameter. */
function queryOf(req: SiteRequest, workspaceId: string, extra: Record<string, string> = {}): string {
  const filters = RECORD_FILTERS.map((name): [string, string] => [name, req.query(name)?.trim() ?? ""]).filter(
    ([, v]) => v,
  );
  return new URLSearchParams([["workspace", workspaceId], ...filters, ...Object.entries(extra)]).toString();
}

/** The filters as a GET form: works without script; the values stay as the visitor typed them. */
function searchForm(req: SiteRequest, workspaces: { id: string; name: string }[], current: string): Html {
  const r = texts[req.lang];
  const value = (name: string) => req.query(name)?.trim() ?? "";
  const picker =
    workspaces.length > 1
      ? html`<label for="workspace">${t(req.lang).historyWorkspace}</label>
  <select id="workspace" name="workspace">${workspaces.map(
    (w) => html`<option value="${w.id}"${w.id === current ? html` selected` : ""}>${w.name}</option>`,
  )}</select>`
      : html`<input type="hidden" name="workspace" value="${current}">`;
  const types = RECORD_TYPES.map(
    (type) => html`<option value="${type}"${value("type") === type ? html` selected` : ""}>${r[type]}</option>`,
  );
  const input = (name: string, label: string, type: string, extra: Html | string = "") => html`<p>
  <label for="${name}">${label}</label>
  <input type="${type}" id="${name}" name="${name}" value="${value(name)}"${extra}>
</p>`;
  return html`<form method="get" action="${base(req.lang)}" role="search" id="records-search">
  ${picker}
  <p><label for="type">${r.type}</label>
  <select id="type" name="type"><option value="">${r.anyType}</option>${types}</select></p>
  ${input("dateFrom", r.dateFrom, "date")}
  ${input("dateTo", r.dateTo, "date")}
  ${input("amountMin", r.amountMin, "number", html` step="1" aria-describedby="amount-hint"`)}
  ${input("amountMax", r.amountMax, "number", html` step="1" aria-describedby="amount-hint"`)}
  <p id="amount-hint" class="muted">${r.amountHint}</p>
  ${input("currency", r.currency, "text", html` maxlength="3" size="4"`)}
  ${input("counterparty", r.counterparty, "text", html` maxlength="200"`)}
  ${input("number", r.number, "text", html` maxlength="200"`)}
  <p><button type="submit">${r.search}</button></p>
</form>`;
}

/** One page of results: each record's fields and its PDF's link. */
export function resultsTable(lang: Language, workspaceId: string, records: KeptRecord[]): Html {
  const r = texts[lang];
  if (!records.length) return html`<p id="records">${r.empty}</p>`;
  const rows = records.map(
    (record) => html`<tr>
  <td>${record.date}</td>
  <td class="number">${recordAmountText(record.amount, record.currency)} ${record.currency}</td>
  <td>${record.counterparty}</td>
  <td>${r[record.type]}</td>
  <td>${record.number ?? ""}</td>
  <td><a href="/records/${encodeURIComponent(record.recordId)}/pdf?workspace=${encodeURIComponent(workspaceId)}">${record.fileName}</a></td>
</tr>`,
  );
  return dataTable([r.date, r.amount, r.counterparty, r.type, r.number, r.file], rows, { id: "records" });
}

/** A refused filter as the page shows it: each parameter with its reason, in the page's language. */
function refusal(lang: Language, err: unknown): Html | undefined {
  if (!isPlatenError(err) || err.status !== 400) return undefined;
  const reasons = err.details.map((d) => html`<li>${d.field ?? ""}: ${detailMessage(d, lang)}</li>`);
  return html`<div class="alert" role="alert" id="records-error"><p>${texts[lang].refused}</p><ul>${reasons}</ul></div>`;
}

/**
 * The workspace of the visitor's choice (`?workspace=`, else their first), or the page to answer instead: the
 * login redirect, or a page saying they belong to none.
 */
async function visitorWorkspace(
  req: SiteRequest,
  identity: SiteIdentity,
): Promise<{ userId: string; workspaceId: string; all: { workspaceId: string }[] } | { result: SiteResult }> {
  const user = await requireUser(req, identity);
  if ("result" in user) return user;
  const { all, chosen } = await chosenWorkspace(req, identity, user.userId);
  if (chosen) return { userId: user.userId, workspaceId: chosen.workspaceId, all };
  const body = html`<p>${texts[req.lang].noWorkspace}</p>`;
  return { result: { status: 200, page: page(req, identity, true, texts[req.lang].title, body) } };
}

/** GET `/records`, `/ja/records`: the search form, one page of results with their PDFs, the export, the retention. */
export const recordsPage =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const visitor = await visitorWorkspace(req, identity);
    if ("result" in visitor) return visitor.result;
    const { workspaceId, userId, all } = visitor;
    const r = texts[req.lang];
    const [workspaces, years] = await Promise.all([
      Promise.all(
        all.map(async (m) => ({ id: m.workspaceId, name: (await getWorkspace(m.workspaceId))?.name ?? m.workspaceId })),
      ),
      store.retentionYears(workspaceId),
    ]);
    const retention = html`<p id="records-retention">${fill(r.retention, { years })}</p>`;
    const form = searchForm(req, workspaces, workspaceId);
    let results: Html;
    let status = 200;
    try {
      const query = parseRecordQuery(workspaceId, (name) => req.query(name));
      const cursor = req.query("cursor");
      const found = await searchPage(store, query, cursor);
      await recordAudit(
        { workspaceId, actor: siteReader(userId), action: "records.search", detail: auditFilters(query) },
        systemClock,
      );
      const first = cursor ? html`<a href="${base(req.lang)}?${queryOf(req, workspaceId)}">${r.first}</a>` : "";
      const next = found.next
        ? html`<a rel="next" href="${base(req.lang)}?${queryOf(req, workspaceId, { cursor: found.next })}">${r.next}</a>`
        : "";
      const exportHref = `${base(req.lang)}/export?${queryOf(req, workspaceId)}`;
      results = html`<p><a class="button" id="records-export" href="${exportHref}" download>${r.export}</a></p>
${resultsTable(req.lang, workspaceId, found.records)}
<nav class="pager" aria-label="${r.title}">${first}${next}</nav>`;
    } catch (err) {
      const shown = refusal(req.lang, err);
      if (!shown) throw err;
      results = shown;
      status = 400;
    }
    const body = html`<p>${r.intro}</p>
${retention}
${form}
${results}`;
    return { status, page: page(req, identity, true, r.title, body, { wide: true }) };
  };

/** GET `/records/export`, `/ja/records/export`: the API's CSV export of the form's filters, headers in the page's language. */
export const recordsExport =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const visitor = await visitorWorkspace(req, identity);
    if ("result" in visitor) return visitor.result;
    const { workspaceId, userId } = visitor;
    try {
      const query = parseRecordQuery(workspaceId, (name) => req.query(name));
      const rows = await exportRecords(store, query);
      await recordAudit(
        { workspaceId, actor: siteReader(userId), action: "records.export", detail: auditFilters(query) },
        systemClock,
      );
      return {
        status: 200,
        contentType: "text/csv; charset=utf-8",
        stream: Readable.from(recordsCsv(rows, req.lang)),
        contentLength: undefined,
        headers: { "Cache-Control": "no-store", "Content-Disposition": `attachment; filename="records.csv"` },
      };
    } catch (err) {
      const shown = refusal(req.lang, err);
      if (!shown) throw err;
      return { status: 400, page: page(req, identity, true, texts[req.lang].title, shown) };
    }
  };

/** GET `/records/{recordId}/pdf?workspace=`: a kept PDF, inline, to a member of its workspace only (others: 404). */
export const recordPdf =
  (identity: SiteIdentity): PageHandler =>
  async (req) => {
    const user = await requireUser(req, identity);
    if ("result" in user) return user.result;
    const workspaceId = req.query("workspace");
    if (!(await roleOf(identity, workspaceId, user.userId))) return notFound(req, identity, true);
    const record = await store.find(workspaceId!, req.params.recordId ?? "");
    const pdf = record && (await pdfs.read(recordPdfKey(record)));
    if (!record || !pdf) return notFound(req, identity, true);
    await recordAudit(
      { workspaceId: workspaceId!, actor: siteReader(user.userId), action: "record.download", target: record.recordId },
      systemClock,
    );
    return {
      status: 200,
      contentType: "application/pdf",
      stream: Readable.from([pdf]),
      contentLength: pdf.length,
      // Inline: a record is shown (and printed) at once; the viewer's own download keeps its name.
      headers: {
        "Cache-Control": "no-store",
        "Content-Disposition": contentDisposition(pdfFileName(record.fileName)).replace(/^attachment/, "inline"),
      },
    };
  };
