import { api, type RunningStack } from "./local-stack.ts";

/** One file entry of a `response=json` sync answer (OpenAPI generateSyncSingle) plus its share object. */
export interface GeneratedFile {
  requestId: string;
  fileId: string;
  url: string;
  passcode?: string;
  /** The site path of the file view, `/file/<requestId>/<fileId>`. */
  path: string;
}

/** Generates one file synchronously through the API and returns its share URL (and passcode). */
export async function generateFile(
  stack: RunningStack,
  workspace: { appKey: string; designs: { id: string; latestVersion: number }[] },
  content: {
    fileName: string;
    shareType?: "01" | "02" | "03";
    passcodeEnabled?: boolean;
    passthrough?: Record<string, string | number>;
  },
): Promise<GeneratedFile> {
  const design = workspace.designs[0]!;
  const res = await api(stack, workspace.appKey)("/file/sync/single?response=json", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ designId: design.id, version: design.latestVersion, content: { params: {}, ...content } }),
  });
  if (res.status !== 200) throw new Error(`generation answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as {
    requestId: string;
    files: { fileId: string; share: { url: string; passcode?: string } }[];
  };
  const file = body.files[0]!;
  return {
    requestId: body.requestId,
    fileId: file.fileId,
    url: file.share.url,
    passcode: file.share.passcode,
    path: new URL(file.share.url).pathname,
  };
}

/** The site's origin of a running stack (the same gateway as the API locally). */
/** A url-encoded form POST (what the site's no-script forms send). */
export const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

/**
 * Requests to the site as a signed-in member, without following redirects: `session()` gives the
 * site's origin and the member's cookie once the test's `beforeAll` has them.
 */
export function siteAs(session: () => { origin: string; cookie: string }) {
  const as = (path: string, init: RequestInit = {}) => {
    const { origin, cookie } = session();
    return fetch(`${origin}${path}`, { redirect: "manual", ...init, headers: { cookie, ...(init.headers ?? {}) } });
  };
  return { as, pageOf: async (path: string) => (await as(path)).text() };
}

/** Signs a seeded user in on the site (POST /login) and returns the session's `Cookie` header value. */
export async function loginCookie(
  origin: string,
  user: { email: string; password: string },
  returnTo = "/designs",
): Promise<string> {
  const res = await fetch(`${origin}/login`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: user.email, password: user.password, return_to: returnTo }).toString(),
    redirect: "manual",
  });
  return (res.headers.getSetCookie() ?? []).map((c) => c.split(";")[0]).join("; ");
}

export const siteOrigin = (stack: RunningStack) => `http://127.0.0.1:${stack.port}`;

/** Moves the stack's clock (test hook) by `offsetMs` from the real time. */
export async function moveClock(stack: RunningStack, offsetMs: number): Promise<void> {
  const res = await fetch(`${siteOrigin(stack)}/__local/clock`, { method: "POST", body: JSON.stringify({ offsetMs }) });
  if (res.status !== 200) throw new Error(`clock hook answered ${res.status}`);
}

/** `id="..."` values of an HTML page. */
export const idsOf = (page: string) => new Set([...page.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1]!));

/**
 * One invoice of `items` line items of workspace `ws` (local.json's index, or a workspace of the
 * same shape), generated through the API (sync single, JSON answer).
 */
export async function invoice(
  stack: RunningStack,
  ws: number | RunningStack["localJson"]["workspaces"][number],
  fileName: string,
  items: number,
  extra: Record<string, unknown> = {},
) {
  const workspace = typeof ws === "number" ? stack.localJson.workspaces[ws]! : ws;
  const design = workspace.designs.find((d) => d.label.includes("請求書"))!;
  const 明細 = Array.from({ length: items }, (_, i) => ({ 品名: `品目 ${i + 1}`, 数量: 1, 単価: 1000, 税率: 10 }));
  const res = await api(stack, workspace.appKey)("/file/sync/single?response=json", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      designId: design.id,
      version: design.latestVersion,
      content: { fileName, params: { 請求先: "株式会社ページ", 明細 }, ...extra },
    }),
  });
  if (res.status !== 200) throw new Error(`sync single answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as {
    requestId: string;
    files: { fileId: string; pageCount: number; share: { url: string } }[];
  };
  const file = body.files[0]!;
  return {
    requestId: body.requestId,
    fileId: file.fileId,
    workspaceId: workspace.id,
    path: new URL(file.share.url).pathname,
    pageCount: file.pageCount,
  };
}
