import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acceptOrFail, pollStatus } from "../helpers/async-http.ts";
import { invoiceItem, invoiceOf, mismatchedItem } from "../helpers/async-fixtures.ts";
import { api, type RunningStack, settled } from "../helpers/local-stack.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { csrfOf, directSite, FakeIdentity } from "../helpers/site-direct.ts";
import { type GeneratedFile, generateFile } from "../helpers/site-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createSeededLike } from "../helpers/sync-fixtures.ts";
import { listAudit } from "#shared/audit/audit-log.ts";
import { systemClock } from "#shared/clock.ts";
import { PlatenError, untranslated } from "#shared/errors/platen-error.ts";
import { problemText } from "../../functions/site/pages/settings-actions.ts";

/**
 * The logged-in pages with the identity port faked in memory (users, roles, a cookie),
 * everything else real: the site's handler and routes against the stack's emulators.
 */
type Workspace = RunningStack["localJson"]["workspaces"][number];

let stack: SharedStack;
/** Workspaces of this file's own, shaped like local.json's seeded two. */
let seeded: [Workspace, Workspace];
let wsA: string;
let wsB: string;
const identity = new FakeIdentity()
  .addUser("admin", "admin@a.example")
  .addUser("reader", "reader@a.example")
  .addUser("outsider", "someone@b.example")
  .addUser("guest", "Guest@Example.com");
const site = directSite(identity);
let internal: GeneratedFile;
let invited: GeneratedFile;
let partialId: string;

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  seeded = [await createSeededLike(stack, "Member pages A"), await createSeededLike(stack, "Member pages B", "free")];
  const [a, b] = seeded;
  wsA = a.id;
  wsB = b.id;
  identity.grant(wsA, "admin", "admin").grant(wsA, "reader", "read").grant(wsB, "outsider", "admin");
  internal = await generateFile(stack, a, { fileName: "internal" });
  invited = await generateFile(stack, a, { fileName: "for-guests", shareType: "02" });
  const design = invoiceOf(a);
  partialId = (
    await acceptOrFail(stack, a.appKey, "multiple", {
      designId: design.id,
      version: design.latestVersion,
      contents: [invoiceItem("good"), mismatchedItem("bad")],
    })
  ).requestId;
  await pollStatus(stack, a.appKey, partialId);
  await settled(stack);
});

afterAll(() => stack?.release());

describe("share types 01 and 02", () => {
  it("shows a workspace file to members only; others get the 404 page", async () => {
    expect((await site("GET", internal.path)).status).toBe(404);
    expect((await site("GET", internal.path, { cookie: identity.cookie("outsider") })).status).toBe(404);
    const member = await site("GET", internal.path, { cookie: identity.cookie("reader") });
    expect(member.status).toBe(200);
    expect(member.text).toContain(`src="${internal.path}/pages/1.png"`);
  });

  it("lets an admin invite by e-mail; the invited user sees the file, nobody else; removal takes it back", async () => {
    const guest = identity.cookie("guest");
    expect((await site("GET", invited.path, { cookie: guest })).status).toBe(404);
    const adminPage = await site("GET", invited.path, { cookie: identity.cookie("admin") });
    expect(adminPage.text).toContain('id="invite-email"');
    const readerPage = await site("GET", invited.path, { cookie: identity.cookie("reader") });
    expect(readerPage.text).not.toContain('id="invite-email"'); // readers see the file, not the list
    const action = `${invited.path}/invitations`;
    const forged = await site("POST", action, {
      cookie: identity.cookie("admin"),
      form: { action: "add", email: "guest@example.com" },
    });
    expect(forged.status).toBe(403);
    const byReader = await site("POST", action, {
      cookie: identity.cookie("reader"),
      form: { action: "add", email: "guest@example.com", csrf: csrfOf(readerPage.text) },
    });
    expect(byReader.status).toBe(404);
    const added = await site("POST", action, {
      cookie: identity.cookie("admin"),
      form: { action: "add", email: " GUEST@example.com ", csrf: csrfOf(adminPage.text) },
    });
    expect(added.status).toBe(303);
    expect((await site("GET", invited.path, { cookie: identity.cookie("admin") })).text).toContain("guest@example.com");
    expect((await site("GET", invited.path, { cookie: guest })).status).toBe(200);
    expect((await site("GET", invited.path, { cookie: identity.cookie("outsider") })).status).toBe(404);
    expect((await site("GET", invited.path)).status).toBe(404);
    await site("POST", action, {
      cookie: identity.cookie("admin"),
      form: { action: "remove", email: "guest@example.com", csrf: csrfOf(adminPage.text) },
    });
    expect((await site("GET", invited.path, { cookie: guest })).status).toBe(404);
  });
});

describe("output history pages", () => {
  it("sends anonymous visitors to the login page and hides other workspaces' requests", async () => {
    const anonymous = await site("GET", `/output-history/${partialId}`);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.location).toBe(`/login?return_to=${encodeURIComponent(`/output-history/${partialId}`)}`);
    expect((await site("GET", `/output-history/${partialId}`, { cookie: identity.cookie("outsider") })).status).toBe(
      404,
    );
  });

  it("shows a partial failure as the status endpoint does, with file links, codes linked to the docs and the ZIP", async () => {
    const page = await site("GET", `/output-history/${partialId}`, { cookie: identity.cookie("reader") });
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<a href="\/file\/\w+\/\w+">good<\/a>/);
    expect(page.text).toContain('<a href="/docs/errors#params_type_mismatch"><code>PARAMS_TYPE_MISMATCH</code></a>');
    const zip = await site("GET", `/output-history/${partialId}/download`, { cookie: identity.cookie("reader") });
    const fromApi = await api(stack, seeded[0].appKey)(`/file/download/${partialId}`);
    expect(zip.headers["content-type"]).toBe("application/zip");
    expect(zip.body.length).toBe(Number(fromApi.headers.get("content-length")));
  });

  it("lists the workspace's requests and finds them by passthrough metadata", async () => {
    const list = await site("GET", "/output-history", { cookie: identity.cookie("reader") });
    expect(list.text).toContain(`/output-history/${partialId}`);
    expect(list.text).toContain(`/output-history/${internal.requestId}`);
    const outsider = await site("GET", `/output-history?workspace=${wsA}`, { cookie: identity.cookie("outsider") });
    expect(outsider.text).not.toContain(partialId); // a workspace the visitor is not in falls back to their own
    // A crafted cursor (extra attributes DynamoDB would refuse) is read as the first page, never a 500.
    const crafted = Buffer.from(
      JSON.stringify({ pk: "REQ#x", sk: "FILE#y", workspaceId: wsA, createdAt: "2026", extra: { S: "x" } }),
    ).toString("base64url");
    const tampered = await site("GET", `/output-history?workspace=${wsA}&after=${crafted}`, {
      cookie: identity.cookie("reader"),
    });
    expect(tampered.status).toBe(200);
  });
});

describe("workspace settings", () => {
  it("lets an admin create an endpoint and warns about design ids the workspace does not have", async () => {
    const page = await site("GET", `/settings?workspace=${wsA}`, { cookie: identity.cookie("admin") });
    expect(page.status).toBe(200);
    const design = seeded[0].designs[0]!.id;
    const created = await site("POST", `/settings/${wsA}/hooks`, {
      cookie: identity.cookie("admin"),
      form: {
        csrf: csrfOf(page.text),
        url: "http://127.0.0.1:9/hook",
        designFilterType: "selected",
        targetDesignIds: design,
        otherDesignIds: "GONEdesign000001",
      },
    });
    expect(created.status).toBe(200);
    expect(created.text).toMatch(/<output class="secret" id="shown-secret">whsec_[\w-]+<\/output>/);
    expect(created.text).toContain('data-warning="missing-designs"');
    expect(created.text).toContain("GONEdesign000001");
  });

  it("shows readers the settings without forms and refuses their writes", async () => {
    const page = await site("GET", `/settings?workspace=${wsA}`, { cookie: identity.cookie("reader") });
    expect(page.text).toContain("http://127.0.0.1:9/hook");
    expect(page.text).not.toContain('id="create-endpoint"');
    const write = await site("POST", `/settings/${wsA}/hooks`, {
      cookie: identity.cookie("reader"),
      form: { csrf: csrfOf(page.text), url: "http://127.0.0.1:9/x" },
    });
    expect(write.status).toBe(403);
    expect(
      (
        await site("POST", `/settings/${wsA}/hooks`, {
          cookie: identity.cookie("outsider"),
          form: { url: "http://127.0.0.1:9/x" },
        })
      ).status,
    ).toBe(404);
  });

  it("shows a refused change's reason with its status, and keeps CSRF on every form", async () => {
    const page = await site("GET", `/settings?workspace=${wsA}`, { cookie: identity.cookie("admin") });
    const bad = await site("POST", `/settings/${wsA}/hooks`, {
      cookie: identity.cookie("admin"),
      form: { csrf: csrfOf(page.text), url: "ftp://nope" },
    });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="flash"');
    // Logging out changes nothing of the workspace; like every POST it is refused cross-site (site-edge.ts).
    const forms = (page.text.match(/<form[^>]*method="post"[^>]*>/g) ?? []).filter(
      (f) => !f.includes('action="/logout"'),
    );
    const tokens = page.text.match(/name="csrf"/g) ?? [];
    expect(forms.length).toBeGreaterThan(3);
    expect(tokens.length).toBe(forms.length);
    expect(
      (
        await site("POST", `/settings/${wsA}/hooks`, {
          cookie: identity.cookie("admin"),
          form: { url: "http://127.0.0.1:9/y" },
        })
      ).status,
    ).toBe(403);
    const crossSite = await site("POST", `/settings/${wsA}/hooks`, {
      cookie: identity.cookie("admin"),
      form: { csrf: csrfOf(page.text), url: "http://127.0.0.1:9/z" },
      headers: { Origin: "https://evil.example", Host: "site.test" },
    });
    expect(crossSite.status).toBe(403);
  });

  it("gives readers no rotate button and refuses a reader's forged rotation", async () => {
    const page = await site("GET", `/settings?workspace=${wsA}`, { cookie: identity.cookie("reader") });
    expect(page.text).not.toContain('id="rotate-key"');
    const forged = await site("POST", `/settings/${wsA}/key-rotate`, {
      cookie: identity.cookie("reader"),
      form: { csrf: csrfOf(page.text) },
    });
    expect(forged.status).toBe(403);
    expect(forged.text).not.toMatch(/id="shown-secret"/);
    const a = seeded[0];
    expect((await api(stack, a.appKey)("/file/designs")).status).toBe(200); // the key still works
    expect(
      (await site("POST", `/settings/${wsA}/key-rotate`, { cookie: identity.cookie("outsider"), form: {} })).status,
    ).toBe(404);
  });

  it("lets an admin rotate the key once, audited with the session's user; a lost race says so with 409", async () => {
    const page = await site("GET", `/settings?workspace=${wsA}`, { cookie: identity.cookie("admin") });
    expect(page.text).toContain('id="rotate-key"');
    expect(
      (await site("POST", `/settings/${wsA}/key-rotate`, { cookie: identity.cookie("admin"), form: {} })).status,
    ).toBe(403); // no CSRF token
    const rotated = await site("POST", `/settings/${wsA}/key-rotate`, {
      cookie: identity.cookie("admin"),
      form: { csrf: csrfOf(page.text) },
    });
    expect(rotated.status).toBe(200);
    const newKey = /<output class="secret" id="shown-secret">([^<]+)<\/output>/.exec(rotated.text)?.[1] ?? "";
    expect((await api(stack, newKey)("/file/designs")).status).toBe(200);
    expect((await api(stack, seeded[0].appKey)("/file/designs")).status).toBe(401);
    const entries = await listAudit(wsA, systemClock);
    const rotation = entries.find((e) => e.action === "application-key.rotate");
    expect(rotation?.actor).toEqual({ via: "session", userId: "admin" });
    expect(entries.some((e) => e.action === "webhook-endpoint.create" && e.actor.userId === "admin")).toBe(true);
    const invitation = entries.find((e) => e.action === "file-invitation.add");
    expect(invitation).toMatchObject({
      actor: { via: "session", userId: "admin" },
      target: `${invited.requestId}/${invited.fileId}`,
      detail: { email: "guest@example.com" },
    });
    expect(entries.some((e) => e.action === "file-invitation.remove")).toBe(true);
    // Three rotations at once: each page shows a key (200) or explains the lost race (409); one key stays valid.
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        site("POST", `/settings/${wsA}/key-rotate`, {
          cookie: identity.cookie("admin"),
          form: { csrf: csrfOf(page.text) },
        }),
      ),
    );
    for (const a of answers) expect([200, 409]).toContain(a.status);
    for (const a of answers.filter((x) => x.status === 409))
      expect(a.text).toContain("Someone else rotated the application key");
    const keys = answers.flatMap((a) => /id="shown-secret">([^<]+)</.exec(a.text)?.[1] ?? []);
    const valid = await Promise.all(keys.map(async (k) => (await api(stack, k)("/file/designs")).status === 200));
    expect(valid.filter(Boolean)).toHaveLength(1);
    expect((await api(stack, newKey)("/file/designs")).status).toBe(401);
  });

  it("words the 409 APP_KEY_ROTATION_CONFLICT for people in both languages", () => {
    const err = new PlatenError("APP_KEY_ROTATION_CONFLICT", {
      vars: { lastRotatedAt: "2026-11-24T07:00:00.000Z" },
      details: [{ field: "lastRotatedAt", text: untranslated("2026-11-24T07:00:00.000Z") }],
    });
    expect(problemText("en", err)).toBe(
      "Someone else rotated the application key at the same time and finished first (2026-11-24T07:00:00.000Z). Their key is the valid one; your rotation made no change. Ask them for the key, or rotate again.",
    );
    expect(problemText("ja", err)).toContain("先に完了しました（2026-11-24T07:00:00.000Z）");
  });
});
