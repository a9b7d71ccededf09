import type { FileRecord } from "#shared/generation/store/index.ts";

/** What the file view may show a visitor. */
export type FileAccess =
  /** The file page itself; `member` visitors also see the invitation list. */
  | { kind: "show"; member: boolean; admin: boolean }
  /** The passcode form first (passcode-protected, visitor not a member, no valid grant). */
  | { kind: "passcode" }
  /** The file passed its retention: say so (only to visitors who could otherwise see it). */
  | { kind: "expired" }
  /** Unknown, foreign or forbidden: the same 404 for all of them. */
  | { kind: "hidden" };

export interface FileVisitor {
  /** The visitor's role in the file's workspace, when logged in and a member. */
  role?: "admin" | "read";
  /** A logged-in visitor whom an admin invited to this file (share type 02). */
  invited: boolean;
  /** A valid passcode cookie for this file. */
  passcodeGranted: boolean;
}

/**
 * The share rules: `workspace` → members only; `invited` → members and invited users;
 * `public` → anyone. A passcode applies to everyone except members. Who may not see a
 * file gets `hidden`, exactly like an unknown id, so nothing tells the two apart.
 */
export function decideFileAccess(file: FileRecord | undefined, visitor: FileVisitor, nowSeconds: number): FileAccess {
  if (!file) return { kind: "hidden" };
  const member = visitor.role !== undefined;
  const admin = visitor.role === "admin";
  const allowed = member || file.shareType === "public" || (file.shareType === "invited" && visitor.invited);
  if (!allowed) return { kind: "hidden" };
  if (file.expiresAt <= nowSeconds) return { kind: "expired" };
  if (file.passcodeHash && !member && !visitor.passcodeGranted) return { kind: "passcode" };
  return { kind: "show", member, admin };
}
