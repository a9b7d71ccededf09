import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createRenderer } from "#shared/render/renderer.ts";
import { stopOnExit } from "../local/stop-on-exit.ts";
import { startDevServer } from "./dev-server.ts";
import { startRenderLoop } from "./render-loop.ts";
import { describeProblem } from "./render-problems.ts";

const USAGE = "usage: npm run design:dev -- <bundle folder> [--port 4100]";
/** An editor's save is a burst of writes (temp file, rename, chmod): one render for the burst. */
const DEBOUNCE_MS = 80;

const log = (msg: string) => console.log(`[design:dev] ${msg}`);

/** A mistake on the command line or a folder that is not a bundle: one line, exit 1. */
class DevUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DevUsageError";
  }
}

/**
 * `npm run design:dev -- <folder>`: a bundle folder's live preview on this machine, no AWS
 * (shared/designs/README.md#the-dev-loop). Renders on start and on every save with the studio
 * preview's engine and serves the page images on 127.0.0.1; Ctrl-C stops it.
 */
async function main(argv: string[]): Promise<void> {
  const { dir, port } = readCommandLine(argv);
  // One browser: a designer renders one document at a time, and a second would only take memory.
  const renderer = createRenderer({ browsers: 1 });
  const server = await startDevServer(dir, port);
  const loop = startRenderLoop({
    dir,
    renderer,
    debounceMs: DEBOUNCE_MS,
    onRendering(version, changed) {
      log(`rendering v${version} (${changed.join(", ")})`);
      server.rendering(version);
    },
    onRender(render) {
      if (render.ok) log(`v${render.version}: ${render.pageCount} page(s) in ${render.ms} ms`);
      else for (const problem of render.problems) log(`v${render.version}: ${describeProblem(problem)}`);
      server.rendered(render);
    },
    onSuperseded: (version) => log(`v${version} superseded by a newer save`),
  });
  stopOnExit(async () => {
    await loop.close();
    await server.close();
    await renderer.close();
  }, log);
  log(`watching ${dir}`);
  log(`preview at ${server.url} (Ctrl-C stops)`);
}

function readCommandLine(argv: string[]): { dir: string; port: number } {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw new DevUsageError(`${(err as Error).message} (${USAGE})`);
  }
  if (parsed.values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const [folder, ...extra] = parsed.positionals;
  if (!folder || extra.length) throw new DevUsageError(`give one bundle folder (${USAGE})`);
  const port = Number(parsed.values.port ?? 4100);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new DevUsageError(`--port must be 0–65535, got "${parsed.values.port}"`);
  // npm runs scripts in the package's folder; a relative path means the one the designer typed it in.
  return { dir: checkedFolder(resolve(process.env.INIT_CWD ?? ".", folder)), port };
}

const parse = (argv: string[]) =>
  parseArgs({
    args: argv,
    allowPositionals: true,
    options: { port: { type: "string", short: "p" }, help: { type: "boolean", short: "h" } },
  });

/** The folder must exist and hold a design.json; anything else in it is checked on every render. */
function checkedFolder(dir: string): string {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new DevUsageError(`no such folder: ${dir}`);
  if (!existsSync(join(dir, "design.json")))
    throw new DevUsageError(
      `${dir} is not a design bundle: it has no design.json (a bundle folder holds design.json, ` +
        "template.liquid, style.css and assets/; see shared/designs/README.md)",
    );
  return dir;
}

main(process.argv.slice(2)).catch((err: NodeJS.ErrnoException) => {
  const message =
    err.code === "EADDRINUSE"
      ? "the port is in use by another program: pass --port with a free one (0 picks one)"
      : err.message;
  console.error(`design:dev: ${message}`);
  process.exit(1);
});
