import { config } from "#shared/aws/config.ts";
import { workspaceHasSigningLabel } from "#shared/signing/identity-store.ts";
import { systemClock } from "#shared/clock.ts";
import { listDesigns } from "#shared/designs/design-pages.ts";
import { loadBundleFromDir } from "#shared/authoring/load-bundle.ts";
import { publishDesign } from "#shared/designs/publish-design.ts";
import { inlineStoredBundles, type InlineBundlesReport } from "#shared/designs/inline-bundles.ts";
import { thumbnailRenderer } from "#shared/authoring/thumbnails.ts";
import { type AdminCommand, need, UsageError } from "./program.ts";
import { requireWorkspace } from "./workspace-arg.ts";

const inlineSummary = (r: InlineBundlesReport, dryRun: boolean) =>
  `${r.versions} versions without an inline bundle: ${r.inlined} ${dryRun ? "to inline" : "inlined"}, ` +
  `${r.tooLarge} too large (S3 only), ${r.raced} changed meanwhile, ${r.unreadable.length} unreadable`;

/** `design publish`, `design list` and `design inline-bundles`. */
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
  {
    // The migration of versions published before bundles went inline (shared/designs/inline-bundles.ts).
    name: "design inline-bundles",
    usage: "[--dry-run]",
    options: ["--dry-run"],
    run: async (args) => {
      const dryRun = args.values.dryRun === true;
      const report = await inlineStoredBundles({
        dryRun,
        progress: (r) => process.stderr.write(`design inline-bundles: ${inlineSummary(r, dryRun)}\n`),
      });
      const text = [inlineSummary(report, dryRun), ...report.unreadable.map((item) => `unreadable: ${item}`)];
      return { json: { ...report, dryRun }, text: text.join("\n"), exitCode: report.unreadable.length ? 2 : 0 };
    },
  },
];
