/**
 * The design editor's script (bundled into a static file by ../build-browser-scripts.ts, allowed
 * by the editor's `script-src`). It enhances the editor page's plain form: the four textareas become
 * CodeMirror editors behind tabs, the preview re-renders (as page images from the renderer) once
 * typing pauses, the draft saves itself, problems link to their line, and "Publish" publishes
 * without leaving the page. Without it the page's forms still save and publish.
 *
 * No template HTML ever runs here: previews are PNG images drawn by the renderer's Chromium.
 */
import { css } from "@codemirror/lang-css";
import { html } from "@codemirror/lang-html";
import { json } from "@codemirror/lang-json";
import { pageSetupOf } from "../page-fields.ts";
import { EditorSelection, type Extension } from "@codemirror/state";
import { basicSetup, EditorView } from "codemirror";
import { findNodeAtLocation, parseTree } from "jsonc-parser";

/**
 * The pause after the last keystroke before the preview re-renders: well inside the studio's
 * "at most 500 ms after typing stops", so a preview (~150 ms warm) lands within 700 ms of the
 * last keystroke (test/bench/README.md, the studio phase).
 */
const PREVIEW_PAUSE_MS = 300;
/** The pause before the draft saves (a little longer: a save is a write). */
const SAVE_PAUSE_MS = 800;

type FileKey = "template" | "style" | "parameters" | "sampleParams" | "einvoiceMapping";
/** The files the page has a textarea for (the e-invoice mapping only for an e-invoice design). */
const FILES: FileKey[] = (["template", "style", "parameters", "sampleParams", "einvoiceMapping"] as FileKey[]).filter(
  (key) => document.getElementById(`src-${key}`) !== null,
);

interface Problem {
  file?: string;
  field?: string;
  /** An e-invoice rule's id (BR-06, BR-DE-15, PEPPOL-EN16931-R010, MODEL), shown before the message. */
  code?: string;
  line?: number;
  column?: number;
  message: string;
}

/** Codes that name an e-invoice rule rather than a kind of error (TEMPLATE_FAILED…). */
const RULE_ID = /^(BR-|PEPPOL-|PLATEN-|MODEL$)/;

const root = document.getElementById("studio");
if (root) start(root);

function start(root: HTMLElement): void {
  const designId = root.dataset.design!;
  const csrf = root.dataset.csrf!;
  const text = (name: string) => root.dataset[`text${name}`] ?? "";
  const fill = (template: string, vars: Record<string, string | number>) =>
    template.replace(/\{(\w+)\}/g, (all, key: string) => (key in vars ? String(vars[key]) : all));
  let latest = Number(root.dataset.latest);

  const status = (id: string, message: string) => {
    const el = document.getElementById(id);
    if (el) el.textContent = message;
  };

  // --- CodeMirror editors behind tabs (the textareas stay, hidden, as the form's fields) ---
  const languages: Record<FileKey, Extension> = {
    template: html(),
    style: css(),
    parameters: json(),
    sampleParams: json(),
    // Liquid that writes JSON: the JSON mode marks its brackets and strings.
    einvoiceMapping: json(),
  };
  const views = {} as Record<FileKey, EditorView> & Partial<Record<"einvoiceMapping", EditorView>>;
  for (const key of FILES) {
    const area = document.getElementById(`src-${key}`) as HTMLTextAreaElement;
    const label = document.querySelector(`label[for="src-${key}"]`)?.textContent ?? key;
    const view = new EditorView({
      doc: area.value,
      extensions: [
        basicSetup,
        languages[key],
        // The page's CSP allows the editor's own <style> element by this nonce only.
        EditorView.cspNonce.of(root.dataset.styleNonce ?? ""),
        EditorView.contentAttributes.of({ "aria-label": label, "data-file": key }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          area.value = update.state.doc.toString();
          changed();
        }),
      ],
    });
    area.hidden = true;
    area.after(view.dom);
    views[key] = view;
  }
  root.classList.add("enhanced");

  const tabs = Array.from(root.querySelectorAll<HTMLButtonElement>("[role=tab]"));
  const select = (key: FileKey, focus: boolean) => {
    for (const tab of tabs) {
      const on = tab.dataset.file === key;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
      document.getElementById(`panel-${tab.dataset.file}`)!.hidden = !on;
      if (on && focus) tab.focus();
    }
  };
  tabs.forEach((tab, i) => {
    tab.addEventListener("click", () => select(tab.dataset.file as FileKey, false));
    // Arrow keys move between tabs (the tab pattern), Tab moves on into the editor.
    tab.addEventListener("keydown", (event: KeyboardEvent) => {
      const step = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      if (!step) return;
      event.preventDefault();
      select(tabs[(i + step + tabs.length) % tabs.length]!.dataset.file as FileKey, true);
    });
  });
  root.querySelector<HTMLElement>("[role=tablist]")!.hidden = false;
  select("template", false);

  const form = document.getElementById("draft-form") as HTMLFormElement;
  form.addEventListener("input", (event) => {
    if ((event.target as HTMLElement).closest(".cm-editor")) return;
    changed();
  });
  form.addEventListener("change", changed);

  // --- what the editor holds, as the site's draft and preview calls take it ---
  function editable(): { body: Record<string, unknown> } | { problems: Problem[] } {
    const problems: Problem[] = [];
    const parse = (key: FileKey) => {
      const source = views[key].state.doc.toString();
      if (key === "sampleParams" && !source.trim()) return undefined;
      try {
        return JSON.parse(source);
      } catch (err) {
        problems.push({ file: key, ...jsonErrorAt(source, err), message: (err as Error).message });
        return undefined;
      }
    };
    const parameters = parse("parameters");
    const sampleParams = parse("sampleParams");
    if (problems.length) return { problems };
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? "";
    return {
      body: {
        template: views.template.state.doc.toString(),
        style: views.style.state.doc.toString(),
        parameters,
        ...(sampleParams !== undefined && { sampleParams }),
        ...(views.einvoiceMapping && { einvoiceMapping: views.einvoiceMapping.state.doc.toString() }),
        page: pageSetupOf(value),
      },
    };
  }

  const call = (method: string, path: string, body?: unknown) =>
    fetch(path, {
      method,
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf, accept: "application/json" },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  // --- problems, each a button that moves the cursor to its place ---
  function showProblems(problems: Problem[]): void {
    const list = document.getElementById("problem-list")!;
    list.replaceChildren();
    if (!problems.length) {
      const item = document.createElement("li");
      item.className = "muted";
      item.textContent = text("Noproblems");
      list.append(item);
      return;
    }
    for (const problem of problems) {
      const place = placeOf(problem);
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.className = "link problem";
      button.dataset.file = place?.file ?? problem.file ?? "";
      if (place) button.dataset.line = String(place.line);
      const where = place
        ? fill(text("Problemat"), { file: problem.file ?? place.file, line: place.line, column: place.column })
        : (problem.file ?? "");
      // Publishing's checks name the rule in their message already ("… breaks BR-06: …").
      const named = problem.code && RULE_ID.test(problem.code) && !problem.message.includes(problem.code);
      const rule = named ? `${problem.code} ` : "";
      button.textContent = `${where}${problem.field ? ` (${problem.field})` : ""}: ${rule}${problem.message}`;
      if (place) button.addEventListener("click", () => moveTo(place));
      else button.disabled = true;
      item.append(button);
      list.append(item);
    }
  }

  /** Which editor a problem is in, and where: the template and style by line; design.json fields by path. */
  function placeOf(problem: Problem): { file: FileKey; line: number; column: number } | undefined {
    const file: FileKey | undefined =
      problem.file === "template.liquid" || problem.file === "template"
        ? "template"
        : problem.file === "einvoice.liquid" && views.einvoiceMapping
          ? "einvoiceMapping"
          : problem.file === "style.css" || problem.file === "style"
            ? "style"
            : problem.file === "parameters" || problem.field?.startsWith("parameters")
              ? "parameters"
              : problem.file === "sampleParams" || problem.field?.startsWith("sampleParams")
                ? "sampleParams"
                : undefined;
    if (!file) return undefined;
    if (problem.line !== undefined) return { file, line: problem.line, column: problem.column ?? 1 };
    // A rule the mapping's invoice breaks names a model field, not a place in the Liquid.
    if (file === "einvoiceMapping") return undefined;
    const path = (problem.field ?? "").split(".").slice(1).map(step);
    const source = views[file].state.doc.toString();
    const tree = parseTree(source);
    // A missing field (a required label) is placed at the nearest object that exists.
    let node = tree ? findNodeAtLocation(tree, path) : undefined;
    while (tree && !node && path.length) {
      path.pop();
      node = findNodeAtLocation(tree, path);
    }
    const line = views[file].state.doc.lineAt(node?.offset ?? 0);
    return { file, line: line.number, column: (node?.offset ?? 0) - line.from + 1 };
  }

  function moveTo(place: { file: FileKey; line: number; column: number }): void {
    select(place.file, false);
    const view = views[place.file];
    const line = view.state.doc.line(Math.min(Math.max(place.line, 1), view.state.doc.lines));
    const at = Math.min(line.from + place.column - 1, line.to);
    view.dispatch({ selection: EditorSelection.cursor(at), scrollIntoView: true });
    view.focus();
  }

  // --- the preview: at most one in flight; the last good pages stay until new ones arrive ---
  let previewTimer: ReturnType<typeof setTimeout> | undefined;
  let saveTimer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  /** A call is under way; `again`: the editor changed meanwhile, so preview once more when it answers. */
  let inFlight = false;
  let again = false;

  function changed(): void {
    clearTimeout(previewTimer);
    clearTimeout(saveTimer);
    previewTimer = setTimeout(preview, PREVIEW_PAUSE_MS);
    saveTimer = setTimeout(() => void save(), SAVE_PAUSE_MS);
  }

  async function preview(): Promise<void> {
    // One call at a time keeps a fast typist inside the preview rate class (60 a minute).
    if (inFlight) {
      again = true;
      return;
    }
    const mine = ++generation;
    const current = editable();
    if ("problems" in current) return showProblems(current.problems);
    status("preview-status", text("Previewwaiting"));
    root.setAttribute("aria-busy", "true");
    inFlight = true;
    try {
      const res = await call("POST", `/designs/${designId}/preview`, current.body);
      const body = await res.json();
      if (mine !== generation || again) return; // a newer preview is on its way
      if (!res.ok) {
        showProblems(body.details?.length ? body.details : [{ message: [body.message].flat().join(" ") }]);
        status("preview-status", "");
        return;
      }
      showPages(body.pages as string[], body.pageCount as number);
      showProblems([]);
    } catch {
      if (mine === generation) status("preview-status", text("Scriptproblem"));
    } finally {
      inFlight = false;
      if (again) {
        again = false;
        void preview();
      } else if (mine === generation) root.removeAttribute("aria-busy");
    }
  }

  function showPages(pages: string[], pageCount: number): void {
    const holder = document.getElementById("preview-pages")!;
    const images = pages.map((src, i) => {
      const img = document.createElement("img");
      img.src = src;
      img.alt = fill(text("Previewpage"), { page: i + 1, pages: pageCount });
      img.className = "page-image";
      return img;
    });
    holder.replaceChildren(...images);
    const more = pageCount - pages.length;
    status("preview-status", more > 0 ? fill(text("Previewmore"), { more }) : "");
    holder.dataset.rendered = String(Number(holder.dataset.rendered ?? "0") + 1);
  }

  // --- the draft saves itself; publish saves first, then publishes what was saved ---
  let saving: Promise<boolean> = Promise.resolve(true);
  function save(): Promise<boolean> {
    clearTimeout(saveTimer);
    const current = editable();
    if ("problems" in current) return Promise.resolve(false);
    status("save-status", text("Saving"));
    saving = saving.then(async () => {
      try {
        const res = await call("PUT", `/designs/${designId}/draft`, current.body);
        if (!res.ok) return false;
        const { updatedAt } = await res.json();
        status("save-status", fill(text("Saved"), { at: `${updatedAt.slice(0, 10)} ${updatedAt.slice(11, 19)} UTC` }));
        return true;
      } catch {
        status("save-status", text("Scriptproblem"));
        return false;
      }
    });
    return saving;
  }

  const publishForm = document.getElementById("publish-form") as HTMLFormElement;
  const publishButton = document.getElementById("publish") as HTMLButtonElement;
  publishForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    publishButton.disabled = true;
    try {
      if (!(await save())) {
        await preview();
        return;
      }
      const note = (document.getElementById("publish-note") as HTMLInputElement).value;
      const res = await call("POST", `/designs/${designId}/publish`, { note, expectedLatestVersion: latest });
      const body = await res.json();
      if (res.ok) {
        latest = body.version;
        (document.getElementById("publish-note") as HTMLInputElement).value = "";
        publishButton.textContent = fill(text("Publishbutton"), { version: latest + 1 });
        status("publish-status", fill(text("Published"), { version: body.version }));
      } else if (body.code === "DESIGN_VERSION_CONFLICT") {
        const winner = Number(body.details?.[0]?.latestVersion);
        status("publish-status", fill(text("Conflict"), { version: body.details?.[0]?.latestVersion ?? "?" }));
        // What the winner changed since this page's version: the history's diff (built with the DOM, never markup).
        if (Number.isInteger(winner) && latest >= 1 && winner > latest) {
          const link = document.createElement("a");
          link.href = `/designs/${designId}/versions?from=${latest}&to=${winner}#diff`;
          link.id = "conflict-diff";
          link.textContent = fill(text("Conflictdiff"), { from: latest, to: winner });
          document.getElementById("publish-status")?.append(" ", link);
        }
      } else {
        showProblems(body.details?.length ? body.details : [{ message: [body.message].flat().join(" ") }]);
        status("publish-status", [body.message].flat().join(" "));
      }
    } catch {
      status("publish-status", text("Scriptproblem"));
    } finally {
      publishButton.disabled = false;
    }
  });

  void preview();
}

/** A JSON.parse error's place: V8 names the line and column, or at least the position. */
function jsonErrorAt(source: string, err: unknown): { line?: number; column?: number } {
  const message = (err as Error).message;
  const lineColumn = /line (\d+) column (\d+)/.exec(message);
  if (lineColumn) return { line: Number(lineColumn[1]), column: Number(lineColumn[2]) };
  const position = /position (\d+)/.exec(message);
  if (!position) return {};
  const before = source.slice(0, Number(position[1])).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** A path step of a field name: array indexes are numbers. */
const step = (part: string): string | number => (/^\d+$/.test(part) ? Number(part) : part);
