import { describe, expect, it } from "vitest";
import { escapeHtml, html } from "#shared/html/html.ts";
import { safeReturnTo } from "../../functions/site/return-to.ts";
import { isEmailAddress } from "#shared/site/invitation-store.ts";
import type { FileRecord } from "#shared/generation/store/index.ts";
import { issueCsrfToken, verifyCsrfToken } from "#shared/site/csrf.ts";
import { decideFileAccess, type FileVisitor } from "#shared/site/file-access.ts";
import { GRANT_SECONDS, issueGrant, verifyGrant } from "#shared/site/passcode-grant.ts";

const NOW = 1_800_000_000;
const file = (over: Partial<FileRecord> = {}): FileRecord => ({
  requestId: "R".repeat(16),
  fileId: "F".repeat(16),
  workspaceId: "W".repeat(16),
  designId: "D".repeat(16),
  version: 1,
  fileName: "a",
  index: 0,
  status: "done",
  source: "sync",
  mode: "single",
  shareType: "workspace",
  createdAt: "2026-11-24T00:00:00.000Z",
  expiresAt: NOW + 3600,
  ...over,
});
const anonymous: FileVisitor = { invited: false, passcodeGranted: false };

describe("file view access", () => {
  it("hides an unknown file exactly like a forbidden one", () => {
    expect(decideFileAccess(undefined, anonymous, NOW)).toEqual({ kind: "hidden" });
    expect(decideFileAccess(file(), anonymous, NOW)).toEqual({ kind: "hidden" });
  });

  it("shows workspace files to members only, whatever their role", () => {
    expect(decideFileAccess(file(), { ...anonymous, role: "read" }, NOW)).toEqual({
      kind: "show",
      member: true,
      admin: false,
    });
    expect(decideFileAccess(file(), { ...anonymous, role: "admin" }, NOW)).toEqual({
      kind: "show",
      member: true,
      admin: true,
    });
    expect(decideFileAccess(file(), { ...anonymous, invited: true }, NOW)).toEqual({ kind: "hidden" });
  });

  it("shows invited files to members and invited users, hides them from everyone else", () => {
    const invitedFile = file({ shareType: "invited" });
    expect(decideFileAccess(invitedFile, { ...anonymous, invited: true }, NOW).kind).toBe("show");
    expect(decideFileAccess(invitedFile, { ...anonymous, role: "read" }, NOW).kind).toBe("show");
    expect(decideFileAccess(invitedFile, anonymous, NOW).kind).toBe("hidden");
  });

  it("asks everyone but members for the passcode until a grant exists", () => {
    const locked = file({ shareType: "public", passcodeHash: "scrypt$x$y" });
    expect(decideFileAccess(locked, anonymous, NOW).kind).toBe("passcode");
    expect(decideFileAccess(locked, { ...anonymous, passcodeGranted: true }, NOW).kind).toBe("show");
    expect(decideFileAccess(locked, { ...anonymous, role: "read" }, NOW).kind).toBe("show");
    const invitedLocked = file({ shareType: "invited", passcodeHash: "scrypt$x$y" });
    expect(decideFileAccess(invitedLocked, { ...anonymous, invited: true }, NOW).kind).toBe("passcode");
  });

  it("says a file expired only to visitors who could otherwise see it", () => {
    expect(decideFileAccess(file({ shareType: "public", expiresAt: NOW }), anonymous, NOW).kind).toBe("expired");
    expect(decideFileAccess(file({ expiresAt: NOW }), anonymous, NOW).kind).toBe("hidden");
    expect(decideFileAccess(file({ expiresAt: NOW }), { ...anonymous, role: "read" }, NOW).kind).toBe("expired");
  });
});

describe("passcode grants", () => {
  const key = Buffer.alloc(32, 7);
  const subject = { requestId: "R".repeat(16), fileId: "F".repeat(16), passcodeHash: "scrypt$a$b" };

  it("open exactly the file and passcode they were issued for, until they expire", () => {
    const grant = issueGrant(key, subject, NOW);
    expect(verifyGrant(key, subject, grant, NOW + GRANT_SECONDS - 1)).toBe(true);
    expect(verifyGrant(key, subject, grant, NOW + GRANT_SECONDS)).toBe(false);
    expect(verifyGrant(key, { ...subject, fileId: "G".repeat(16) }, grant, NOW)).toBe(false);
    expect(verifyGrant(key, { ...subject, passcodeHash: "scrypt$new$hash" }, grant, NOW)).toBe(false);
    expect(verifyGrant(Buffer.alloc(32, 8), subject, grant, NOW)).toBe(false);
  });

  it("refuse a forged expiry and garbage", () => {
    const [, mac] = issueGrant(key, subject, NOW).split(".");
    expect(verifyGrant(key, subject, `${NOW + 999_999}.${mac}`, NOW)).toBe(false);
    for (const junk of [undefined, "", "x", "1.2", `${NOW + 10}.`])
      expect(verifyGrant(key, subject, junk, NOW)).toBe(false);
  });
});

describe("CSRF tokens", () => {
  const key = Buffer.alloc(32, 3);

  it("are bound to the user and expire", () => {
    const token = issueCsrfToken(key, "user-1", NOW);
    expect(verifyCsrfToken(key, "user-1", token, NOW + 60)).toBe(true);
    expect(verifyCsrfToken(key, "user-2", token, NOW + 60)).toBe(false);
    expect(verifyCsrfToken(key, "user-1", token, NOW + 3 * 3600)).toBe(false);
    expect(verifyCsrfToken(key, "user-1", null, NOW)).toBe(false);
  });
});

describe("HTML escaping", () => {
  it("escapes every interpolated value, keeps fragments", () => {
    const name = `<script>alert("x")</script>&'`;
    expect(escapeHtml(name)).toBe("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;");
    expect(html`<p title="${name}">${html`<b>${name}</b>`}</p>`.text).toBe(
      `<p title="${escapeHtml(name)}"><b>${escapeHtml(name)}</b></p>`,
    );
    expect(html`${[1, "<", null, undefined, false]}`.text).toBe("1&lt;");
  });
});

describe("the login's return_to", () => {
  it("keeps a path of this site, with its query", () => {
    expect(safeReturnTo("/output-history/abc?q=x#top")).toBe("/output-history/abc?q=x#top");
    expect(safeReturnTo("/file/R/F")).toBe("/file/R/F");
  });

  it("refuses anything a browser would read as another host: //, backslashes, tabs and newlines, absolute URLs", () => {
    for (const value of [
      "//evil.com",
      "/\\evil.com",
      "/\t/evil.com",
      "/\n/evil.com",
      "/\r\n/evil.com",
      "\\/evil.com",
      "https://evil.com",
      "javascript:alert(1)",
      "",
      undefined,
      null,
    ])
      expect(safeReturnTo(value), JSON.stringify(value)).toBe("/");
    // What a browser makes of the tab variant, had it been let through:
    expect(new URL("/\t/evil.com", "https://platen.example").host).toBe("evil.com");
  });
});

describe("invitation addresses", () => {
  it("takes addresses as people type them and refuses markup and quoted forms", () => {
    for (const ok of ["a@b.co", "first.last+tag@example.co.jp", "Guest@Example.com", "名前@例え.jp"])
      expect(isEmailAddress(ok), ok).toBe(true);
    for (const bad of ['"><script>alert(1)</script>@x.y', "a b@c.d", "a@b", "a@@b.c", "<a@b.c>", "a@b.c;d@e.f", ""])
      expect(isEmailAddress(bad), bad).toBe(false);
  });
});
