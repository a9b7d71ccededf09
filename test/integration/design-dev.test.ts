import { type ChildProcess, execFile, spawn } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compactPdfText } from "../helpers/pdf-inspect.ts";
import { descendants, isAlive } from "../helpers/processes.ts";

/**
 * `npm run design:dev` as a designer runs it, in a child process with real Chromium: a temporary
 * copy of the sample invoice, edited on disk, followed through the page's event stream.
 */
const repoRoot = resolve(import.meta.dirname, "../..");
const temp = mkdtempSync(join(tmpdir(), "platen-design-dev-"));
const folder = join(temp, "invoice");
const template = join(folder, "template.liquid");

interface DevState {
  rendering?: number;
  version?: number;
  pageCount?: number;
  pages?: string[];
  pdf?: string;
  problems?: { file: string; line?: number; column?: number; message: string; text: string }[];
}

let child: ChildProcess;
let output = "";
let origin: string;
let events: EventStream;

/** The `state` events of `/events`, read as they come. */
class EventStream {
  readonly seen: DevState[] = [];
  readonly #abort = new AbortController();

  constructor(url: string) {
    void this.#read(url);
  }

  async #read(url: string): Promise<void> {
    const res = await fetch(url, { signal: this.#abort.signal });
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const data = /^event: state\ndata: (.*)$/m.exec(buffer.slice(0, end));
          if (data) this.seen.push(JSON.parse(data[1]!) as DevState);
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted at the end of the test
    }
  }

  /** The first state after the `from`th that passes `test`. */
  async next(from: number, test: (s: DevState) => boolean, timeoutMs = 30_000): Promise<DevState> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.seen.slice(from).find(test);
      if (found) return found;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no such state in ${timeoutMs} ms: ${JSON.stringify(this.seen.slice(from))}\n${output}`);
  }

  close(): void {
    this.#abort.abort();
  }
}

const rendered = (s: DevState) => s.rendering === undefined && s.version !== undefined;

beforeAll(async () => {
  cpSync(join(repoRoot, "shared/designs/samples/invoice-ja"), folder, { recursive: true });
  child = spawn(process.execPath, ["--import", "tsx", "infra/design-dev/design-dev.ts", folder, "--port", "0"], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 60_000;
  for (let url: RegExpExecArray | null = null; !url; await new Promise((r) => setTimeout(r, 100))) {
    url = /preview at (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
    if (url) origin = url[1]!;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no preview URL:\n${output}`);
  }
  events = new EventStream(`${origin}/events`);
});

afterAll(() => {
  events?.close();
  if (child?.exitCode === null) child.kill("SIGKILL");
  rmSync(temp, { recursive: true, force: true });
});

describe("npm run design:dev", () => {
  it("renders the folder on start: the page shows its page images and links the PDF", async () => {
    const first = await events.next(0, rendered);
    expect(first).toMatchObject({ version: 1, pageCount: 1, problems: [] });
    const page = await (await fetch(`${origin}/`)).text();
    expect(page).toContain(`<img src="/render/1/page-1.png"`);
    expect(page).toContain(`href="/render/1/document.pdf"`);
    const image = await fetch(`${origin}${first.pages![0]}`);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect((await image.arrayBuffer()).byteLength).toBeGreaterThan(10_000);
  });

  it("renders again when template.liquid is saved: a new version whose PDF has the new text", async () => {
    const from = events.seen.length;
    appendFileSync(template, "<p>DEV LOOP EDIT</p>\n");
    const next = await events.next(from, (s) => rendered(s) && s.version! > 1);
    expect(next.problems).toEqual([]);
    const pdf = Buffer.from(await (await fetch(`${origin}${next.pdf}`)).arrayBuffer());
    expect(await compactPdfText(pdf)).toContain("DEVLOOPEDIT");
    expect(output).toMatch(/\[design:dev\] rendering v\d+ \(template\.liquid\)/);
  });

  it("shows a Liquid syntax error with its file, line and column, then recovers when it is fixed", async () => {
    const good = readFileSync(template, "utf8");
    const line = good.split("\n").length;
    let from = events.seen.length;
    // Saved as editors do: a new file renamed over the old one.
    writeFileSync(`${template}.new`, `${good}{% if open %}\n`);
    renameSync(`${template}.new`, template);
    const broken = await events.next(from, (s) => rendered(s) && Boolean(s.problems?.length));
    expect(broken.problems![0]).toMatchObject({ file: "template.liquid", line, column: 1 });
    expect(broken.problems![0]!.text).toBe(`template.liquid:${line}:1: tag {% if open %} not closed`);
    // The last good pages stay on the page under the problem.
    const page = await (await fetch(`${origin}/`)).text();
    expect(page).toContain(`template.liquid:${line}:1: tag {% if open %} not closed`);
    expect(page).toMatch(/<img src="\/render\/\d+\/page-1\.png"/);

    from = events.seen.length;
    writeFileSync(template, good.replace("DEV LOOP EDIT", "DEV LOOP FIXED"));
    const fixed = await events.next(from, (s) => rendered(s) && s.version! > broken.version!);
    expect(fixed.problems).toEqual([]);
    const pdf = Buffer.from(await (await fetch(`${origin}${fixed.pdf}`)).arrayBuffer());
    expect(await compactPdfText(pdf)).toContain("DEVLOOPFIXED");
  });

  it("renders a burst of saves once, for the last one", async () => {
    const before = events.seen.filter(rendered).at(-1)!.version!;
    const from = events.seen.length;
    for (let i = 1; i <= 5; i++) appendFileSync(template, `<p>BURST ${i}</p>\n`);
    const last = await events.next(from, (s) => rendered(s) && s.version! > before);
    expect(last.version).toBe(before + 1);
    const pdf = Buffer.from(await (await fetch(`${origin}${last.pdf}`)).arrayBuffer());
    expect(await compactPdfText(pdf)).toContain("BURST5");
  });

  it("stops on Ctrl-C (SIGINT), its Chromium with it", async () => {
    const browsers = descendants(child.pid!).map((p) => p.pid);
    expect(browsers.length).toBeGreaterThan(0);
    const exited = new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(output).toContain("[design:dev] stopped");
    const deadline = Date.now() + 10_000;
    while (browsers.some(isAlive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(browsers.filter(isAlive)).toEqual([]);
  });
});

describe("npm run design:dev on a folder that is not a bundle", () => {
  it("exits 1 with one line that says what a bundle folder holds", async () => {
    const notBundle = join(temp, "notes");
    mkdirSync(notBundle);
    writeFileSync(join(notBundle, "readme.txt"), "hello");
    const out = await run("npm", ["run", "--silent", "design:dev", "--", notBundle]);
    expect(out.code).toBe(1);
    expect(out.stderr.trim()).toBe(
      `design:dev: ${notBundle} is not a design bundle: it has no design.json (a bundle folder holds ` +
        "design.json, template.liquid, style.css and assets/; see shared/designs/README.md)",
    );
    const missing = await run(process.execPath, [
      "--import",
      "tsx",
      "infra/design-dev/design-dev.ts",
      join(temp, "nope"),
    ]);
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `design:dev: no such folder: ${join(temp, "nope")}`]);
  });
});

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(file, args, { cwd: repoRoot }, (err, stdout, stderr) => {
      done({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
