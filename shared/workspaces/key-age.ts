import type { Workspace } from "./workspace-store.ts";

/** README.md#authentication: rotation is recommended every 3 months; a warning appears after 90 days. */
export const KEY_ROTATION_WARNING_DAYS = 90;
const DAY_MS = 24 * 3600 * 1000;

/** Whole days since the application key was last rotated (or created). */
export function appKeyAgeDays(workspace: Pick<Workspace, "appKeyRotatedAt">, now: Date): number {
  const rotated = Date.parse(workspace.appKeyRotatedAt);
  return Number.isNaN(rotated) ? 0 : Math.max(0, Math.floor((now.getTime() - rotated) / DAY_MS));
}

/** True once `lastRotatedAt` is more than 90 days in the past. */
export function appKeyNeedsRotation(workspace: Pick<Workspace, "appKeyRotatedAt">, now: Date): boolean {
  const rotated = Date.parse(workspace.appKeyRotatedAt);
  return !Number.isNaN(rotated) && now.getTime() - rotated > KEY_ROTATION_WARNING_DAYS * DAY_MS;
}

/** The sentence the API's `Warning` header and the admin CLI show for an old key. */
export function keyRotationAdvice(workspace: Pick<Workspace, "id" | "appKeyRotatedAt">, now: Date): string | undefined {
  if (!appKeyNeedsRotation(workspace, now)) return undefined;
  const days = appKeyAgeDays(workspace, now);
  return `The application key was last rotated ${days} days ago (over ${KEY_ROTATION_WARNING_DAYS}); rotate it with POST /v1/workspace/${workspace.id}/application-token/regenerate`;
}
