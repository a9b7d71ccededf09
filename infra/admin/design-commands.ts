import { config } from "#shared/aws/config.ts";
import { workspaceHasSigningLabel } from "#shared/signing/identity-store.ts";
import { systemClock } from "#shared/clock.ts";
import { listDesigns } from "#shared/designs/design-pages.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { thumbnailRenderer } from "#shared/authoring/thumbnails.ts";
import { type AdminCommand, need, UsageError } from "./program.ts";
import { requireWorkspace } from "./workspace-arg.ts";

/** `design publish` and `design list`. */
export const designCommands: AdminCommand[] = [
  {
    name: "design publish",
    usage: "DIR --workspace ID [--design ID]",
    operands: ["[dir]"],
    options: ["--workspace <id>", "--design <id>"],
    run: async (args) => {
      const dir = args.operands[0];
      if (!dir) throw new UsageError("design folder missing");
      const workspaceId = need(args, "workspace");
      await requireWorkspace(workspaceId);
      const bundle = await loadBundleFromDir(dir);
      const designId = typeof args.values.design === "string" ? args.values.design : undefined;
      const out = await publishDesign(
        { workspaceId, bundle, designId, matchLabel: designId === undefined, createdBy: "admin-cli" },
        { clock: systemClock, renderThumbnail: thumbnailRenderer(), signingLabelExists: workspaceHasSigningLabel },
      );
      return { json: out, text: `published ${out.label} as ${out.id} v${out.version}` };
    },
  },
  {
    name: "design list",
    usage: "--workspace ID",
    options: ["--workspace <id>"],
    run: async (args) => {
      const workspaceId = need(args, "workspace");
      await requireWorkspace(workspaceId);
      const designs = [];
      for (let page = 1, total = 1; page <= total; page++) {
        const body = await listDesigns(workspaceId, page, config().baseUrl);
        designs.push(...body.designs);
        total = body.totalPages;
      }
      return {
        json: designs,
        text: designs.map((d) => `${d.id}  v${d.latestVersion}  ${d.label}`).join("\n") || "(no designs)",
      };
    },
  },
];
