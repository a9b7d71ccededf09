import { Html, html } from "#shared/html/html.ts";
import type { BundleProblem } from "#shared/authoring/bundle-rules.ts";
import { describeProblem } from "./render-problems.ts";

/** What the page and its event stream know of the newest render (images and the PDF by URL). */
export interface DevState {
  folder: string;
  /** The version being rendered now, if any. */
  rendering?: number;
  version?: number;
  at?: string;
  ms?: number;
  /** The pages and PDF of the newest good render: a failed one shows them under its problems. */
  pageCount?: number;
  pages?: string[];
  pdf?: string;
  problems?: (Omit<BundleProblem, "text"> & { text: string })[];
}

export const withText = (p: BundleProblem) => ({ ...p, text: describeProblem(p) });

/**
 * The preview page: the newest render's page images, a link to its PDF and its problems,
 * written by the server so it reads without script; the script then follows `/events` and
 * redraws in place (the scroll stays) when a new render is ready. Nothing of the template
 * runs here: the pages are PNG images drawn by the renderer's Chromium.
 */
export function devPage(state: DevState): string {
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${state.folder} · design:dev</title>
<style>${STYLE}</style></head>
<body><header><h1>${state.folder}</h1><p id="status" role="status">${statusText(state)}</p>
<p><a id="pdf" ${state.pdf ? html`href="${state.pdf}"` : html`hidden`}>PDF</a></p></header>
<ul id="problems">${(state.problems ?? []).map((p) => html`<li>${p.text}</li>`)}</ul>
<main id="pages" data-version="${state.version ?? 0}">${pageImages(state)}</main>
<script>${SCRIPT}</script></body></html>`}`;
}

function pageImages(state: DevState): Html[] {
  return (state.pages ?? []).map(
    (src, i) => html`<img src="${src}" alt="page ${i + 1} of ${state.pageCount ?? 0}" class="page">`,
  );
}

/** The status line; the script writes the same words (`statusOf` below). */
export function statusText(state: DevState): string {
  if (state.rendering !== undefined) return `rendering v${state.rendering}…`;
  if (state.version === undefined) return "waiting for the first render…";
  const what = state.problems?.length
    ? `${state.problems.length} problem(s)`
    : `${state.pageCount} page(s)${(state.pages?.length ?? 0) < (state.pageCount ?? 0) ? `, the first ${state.pages?.length} shown` : ""}`;
  return `v${state.version}: ${what}, rendered in ${state.ms} ms at ${state.at?.slice(11, 19)} UTC`;
}

const STYLE = new Html(`
body { font: 15px/1.4 system-ui, sans-serif; margin: 0; background: #e8e8ea; color: #222; }
header { position: sticky; top: 0; background: #fff; padding: 8px 16px; display: flex; gap: 16px;
  align-items: baseline; border-bottom: 1px solid #ccc; }
h1 { font-size: 16px; margin: 0; } header p { margin: 0; }
#problems { margin: 0; padding: 0; list-style: none; }
#problems li { background: #fde8e8; color: #8a1010; padding: 8px 16px; border-bottom: 1px solid #f5c2c2;
  font-family: ui-monospace, monospace; white-space: pre-wrap; }
main { display: flex; flex-direction: column; align-items: center; gap: 16px; padding: 16px; }
img.page { width: min(800px, 100%); background: #fff; box-shadow: 0 1px 4px rgba(0,0,0,.25); }
.stale img.page { opacity: .6; }`);

/** Follows the server's events and redraws in place; `statusOf` mirrors `statusText`. */
const SCRIPT = new Html(`
const $ = (id) => document.getElementById(id);
function statusOf(s) {
  if (s.rendering !== undefined) return "rendering v" + s.rendering + "…";
  if (s.version === undefined) return "waiting for the first render…";
  const shown = (s.pages || []).length;
  const what = s.problems && s.problems.length ? s.problems.length + " problem(s)"
    : s.pageCount + " page(s)" + (shown < s.pageCount ? ", the first " + shown + " shown" : "");
  return "v" + s.version + ": " + what + ", rendered in " + s.ms + " ms at " + s.at.slice(11, 19) + " UTC";
}
function draw(s) {
  $("status").textContent = statusOf(s);
  document.body.classList.toggle("stale", s.rendering !== undefined);
  const main = $("pages");
  if (String(s.version) === main.dataset.version) return;
  $("problems").replaceChildren(...(s.problems || []).map((p) => {
    const li = document.createElement("li");
    li.textContent = p.text;
    return li;
  }));
  if (s.pdf) { $("pdf").href = s.pdf; $("pdf").hidden = false; }
  if (s.pages) main.replaceChildren(...s.pages.map((src, i) => {
    const img = document.createElement("img");
    img.src = src;
    img.alt = "page " + (i + 1) + " of " + s.pageCount;
    img.className = "page";
    return img;
  }));
  main.dataset.version = String(s.version);
}
const events = new EventSource("/events");
events.addEventListener("state", (e) => draw(JSON.parse(e.data)));
`);
