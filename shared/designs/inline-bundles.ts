import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { awsClients } from "#shared/aws/clients.ts";
import { config } from "#shared/aws/config.ts";
import { updateIf } from "#shared/aws/conditional-update.ts";
import { getObjectText, inlineBundleJson, parseStoredBundle } from "./design-store.ts";

/** What one pass of {@link inlineStoredBundles} found, item by item. */
export interface InlineBundlesReport {
  /** Version items without `bundleJson` that were looked at. */
  versions: number;
  /** Given their bundle (or, with `dryRun`, would have been). */
  inlined: number;
  /** Bundles over INLINE_BUNDLE_MAX_BYTES: they stay in S3 only. */
  tooLarge: number;
  /** Versions whose S3 object is missing or is not a stored bundle: left as they are, and named. */
  unreadable: string[];
  /** Changed by someone else between the scan and the write (the write's condition failed): left as they are. */
  raced: number;
}

/**
 * The migration of the version items published before bundles went inline (design-store.ts `bundleJson`):
 * every version item of the designs table without one gets the JSON of its S3 bundle, when that is at most
 * INLINE_BUNDLE_MAX_BYTES. Readers take both forms (an item without `bundleJson` reads its bundle from S3), so
 * it can run while the service does, be stopped at any point and run again: each write is conditional on the
 * item still naming the same bundle and having none inline, and items done are not read again.
 */
export async function inlineStoredBundles(
  opts: { dryRun?: boolean; progress?: (report: InlineBundlesReport) => void } = {},
): Promise<InlineBundlesReport> {
  const report: InlineBundlesReport = { versions: 0, inlined: 0, tooLarge: 0, unreadable: [], raced: 0 };
  const TableName = config().tables.designs;
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await awsClients().ddb.send(
      new ScanCommand({
        TableName,
        FilterExpression: "begins_with(pk, :design) AND begins_with(sk, :v) AND attribute_not_exists(bundleJson)",
        ExpressionAttributeValues: { ":design": "DESIGN#", ":v": "V#" },
        ProjectionExpression: "pk, sk, bundleKey",
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      report.versions++;
      const { pk, sk, bundleKey } = item as { pk: string; sk: string; bundleKey: string };
      const json = await getObjectText(bundleKey);
      if (json === undefined || !isStoredBundle(json)) {
        report.unreadable.push(`${pk} ${sk} (${bundleKey})`);
        continue;
      }
      const { inline } = inlineBundleJson(json);
      if (inline === undefined) {
        report.tooLarge++;
        continue;
      }
      const written =
        opts.dryRun ||
        (await updateIf({
          TableName,
          Key: { pk, sk },
          UpdateExpression: "SET bundleJson = :json",
          ConditionExpression: "attribute_exists(pk) AND bundleKey = :key AND attribute_not_exists(bundleJson)",
          ExpressionAttributeValues: { ":json": inline, ":key": bundleKey },
        }));
      if (written) report.inlined++;
      else report.raced++;
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
    opts.progress?.(report);
  } while (ExclusiveStartKey);
  return report;
}

function isStoredBundle(json: string): boolean {
  try {
    const bundle = parseStoredBundle(json);
    return typeof bundle.template === "string" && typeof bundle.manifest === "object" && bundle.manifest !== null;
  } catch {
    return false;
  }
}
