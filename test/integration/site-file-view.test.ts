import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { catalogue } from "#shared/errors/catalogue.ts";
import { api, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";
import { type GeneratedFile, generateFile, idsOf, moveClock, siteOrigin } from "../helpers/site-fixtures.ts";

let stack: SharedStack;
/** Two workspaces of this file's own, shaped like the seeded ones. */
let workspaces: Awaited<ReturnType<typeof createSeededLike>>[];
let site: string;
let locked: GeneratedFile;
let workspaceOnly: GeneratedFile;

const form = (passcode: string) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams({ passcode }).toString(),
  redirect: "manual" as const,
});

beforeAll(async () => {
  stack = await sharedStack();
  site = siteOrigin(stack);
  workspaces = [await createSeededLike(stack, "File view A"), await createSeededLike(stack, "File view B")];
  const ws = workspaces[0]!;
  locked = await generateFile(stack, ws, {
    fileName: "locked",
    shareType: "03",
    passcodeEnabled: true,
    passthrough: { order: "<script>x</script>" },
  });
  workspaceOnly = await generateFile(stack, ws, { fileName: "internal" });
  await settled(stack);
});

afterAll(async () => {
  await stack?.release();
});

describe("file view over HTTP", () => {
  it("answers share URLs on the site with the security headers", async () => {
    expect(locked.url.startsWith(stack.localJson.siteUrl)).toBe(true);
    const res = await fetch(`${site}${locked.path}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const page = await res.text();
    expect(page).toMatch(/<form method="post" action="\/file\/\w+\/\w+">/);
    expect(page).toContain('name="passcode"');
    expect(page).not.toContain("locked.pdf"); // nothing of the file before the passcode
  });

  it("refuses a wrong passcode, remembers a right one in a file-scoped HttpOnly cookie, streams the API's bytes", async () => {
    const wrong = await fetch(`${site}${locked.path}`, form("not-the-code"));
    expect(wrong.status).toBe(403);
    expect(await wrong.text()).toContain('aria-invalid="true"');
    const right = await fetch(`${site}${locked.path}`, form(locked.passcode!));
    expect(right.status).toBe(303);
    const cookie = right.headers.get("set-cookie") ?? "";
    expect(cookie).toContain(`Path=${locked.path}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const jar = cookie.split(";")[0]!;
    const page = await (await fetch(`${site}${locked.path}`, { headers: { cookie: jar } })).text();
    expect(page).toContain('id="open-pdf"');
    expect(page).toContain(`src="${locked.path}/pages/1.png"`); // page images, no PDF frame
    expect(page).toContain("&lt;script&gt;x&lt;/script&gt;"); // passthrough shown, escaped
    const viaSite = await fetch(`${site}${locked.path}/download`, { headers: { cookie: jar } });
    expect(viaSite.headers.get("content-disposition")).toMatch(/^attachment/);
    const viaApi = await api(stack, workspaces[0]!.appKey)(`/file/download/${locked.requestId}/${locked.fileId}`);
    expect(Buffer.from(await viaSite.arrayBuffer()).equals(Buffer.from(await viaApi.arrayBuffer()))).toBe(true);
    const preview = await fetch(`${site}${locked.path}/preview`, { headers: { cookie: jar } });
    expect(preview.headers.get("content-disposition")).toMatch(/^inline/);
    expect(preview.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    // The grant opens nothing without its cookie, and the bytes are never public.
    expect((await fetch(`${site}${locked.path}/download`)).status).toBe(404);
  });

  it("hides a workspace file from an anonymous visitor exactly like an unknown id", async () => {
    const forbidden = await fetch(`${site}${workspaceOnly.path}`);
    const unknownPath = `/file/${workspaceOnly.requestId}/${"0".repeat(16)}`;
    const unknown = await fetch(`${site}${unknownPath}`);
    expect(forbidden.status).toBe(404);
    expect(unknown.status).toBe(404);
    const strip = (page: string, path: string) =>
      page.replaceAll(encodeURIComponent(path), "PATH").replaceAll(path, "PATH");
    expect(strip(await forbidden.text(), workspaceOnly.path)).toBe(strip(await unknown.text(), unknownPath));
    expect((await fetch(`${site}${workspaceOnly.path}/download`)).status).toBe(404);
    expect((await fetch(`${site}/file/not-an-id/x`)).status).toBe(404);
  });

  it("limits passcode attempts to five per 15 minutes per file and address (the 6th is 429)", async () => {
    const other = await generateFile(stack, workspaces[1]!, {
      fileName: "limited",
      shareType: "03",
      passcodeEnabled: true,
    });
    for (let i = 0; i < 5; i++) expect((await fetch(`${site}${other.path}`, form(`wrong-${i}`))).status).toBe(403);
    const sixth = await fetch(`${site}${other.path}`, form(other.passcode!));
    expect(sixth.status).toBe(429);
    expect(Number(sixth.headers.get("retry-after"))).toBeGreaterThan(800);
    expect(await sixth.text()).toMatch(/Too many attempts/);
  });

  it("says an expired public file expired, its download and preview too; an expired workspace file stays hidden", async () => {
    await moveClock(stack, 40 * 86_400_000);
    try {
      for (const suffix of ["", "/download", "/preview"])
        expect((await fetch(`${site}${locked.path}${suffix}`)).status, suffix).toBe(410);
      expect((await fetch(`${site}${workspaceOnly.path}`)).status).toBe(404);
      expect((await fetch(`${site}${workspaceOnly.path}/download`)).status).toBe(404);
    } finally {
      await moveClock(stack, 0);
    }
  });

  it("serves Japanese by Accept-Language and by the switch", async () => {
    const ja = await fetch(`${site}${locked.path}`, { headers: { "accept-language": "ja,en;q=0.5" } });
    expect(ja.headers.get("content-language")).toBe("ja");
    expect(await ja.text()).toContain("パスコード");
    const switched = await fetch(`${site}${locked.path}?lang=ja`, { redirect: "manual" });
    expect(switched.status).toBe(303);
    expect(switched.headers.get("location")).toBe(locked.path);
    const cookie = switched.headers.get("set-cookie")!.split(";")[0]!;
    expect((await fetch(`${site}${locked.path}`, { headers: { cookie } })).headers.get("content-language")).toBe("ja");
  });
});

describe("error docs over HTTP", () => {
  it("resolves the anchor of every docsUrl the API can return, in both languages", async () => {
    for (const lang of ["en", "ja"]) {
      // An API error tells where its docs are: follow that URL, as a reader would.
      const res = await api(stack, "plt_wrong")("/file/designs", { headers: { "accept-language": lang } });
      const { docsUrl } = (await res.json()) as { docsUrl: string };
      const page = await fetch(docsUrl.replace(stack.localJson.siteUrl, site));
      expect(page.status).toBe(200);
      expect(page.headers.get("content-language")).toBe(lang);
      const ids = idsOf(await page.text());
      for (const code of Object.keys(catalogue))
        expect(ids.has(code.toLowerCase()), `${lang} #${code.toLowerCase()}`).toBe(true);
    }
  });
});
