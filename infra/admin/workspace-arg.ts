import { getWorkspace } from "#shared/workspaces/workspace-store.ts";
import { type Args, need, UsageError } from "./program.ts";

/** The workspace of `id`, or the one line every command prints for a workspace that does not exist. */
export async function requireWorkspace(id: string) {
  const workspace = await getWorkspace(id);
  if (!workspace) throw new UsageError(`workspace ${id} not found`);
  return workspace;
}

/** `--workspace ID`, required and checked to exist. */
export async function workspaceOf(args: Args): Promise<string> {
  const id = need(args, "workspace");
  await requireWorkspace(id);
  return id;
}
