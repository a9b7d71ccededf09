import type { Workspace } from "#shared/workspaces/workspace-store.ts";

/** README.md#authentication: rotation is recommended every 3 months; a warning appears after 90 days. */
export const KEY_WARNING_DAYS = 90;

/** Whole days since the workspace's application key was last rotated (the settings page and the home page). */
export const keyAgeDays = (ws: Workspace, now: Date) =>
  Math.max(0, Math.floor((now.getTime() - Date.parse(ws.appKeyRotatedAt)) / 86_400_000));
