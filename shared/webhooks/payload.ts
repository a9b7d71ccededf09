import { catalogue } from "#shared/errors/catalogue.ts";
import { type Share, type ShareType, shareUrl } from "#shared/share-link.ts";
import type { DeliveryEvent } from "./generation-event.ts";

/**
 * What a payload reads of a file record (generation's `FileRecord` has these fields; the
 * dispatcher gets the records through its deps, so webhooks never imports generation).
 */
export interface PayloadFile {
  requestId: string;
  fileId: string;
  fileName: string;
  shareType: ShareType;
  passcodeHash?: string;
  passthrough?: Record<string, string | number>;
  errorCode?: string;
  errorMessage?: string;
}

/**
 * OpenAPI generateAsyncSingle file entry; `share.passcode` only in the first delivery right after a sync
 * generation.
 */
export interface WebhookFileEntry {
  fileId: string;
  fileName: string;
  passthrough?: Record<string, string | number>;
  share: Share;
}

/**
 * A failed file of `file.failed`: same identification as a file entry, plus the status endpoint's code and
 * message (OpenAPI getStatus).
 */
export interface WebhookFailedFileEntry {
  fileId: string;
  fileName: string;
  passthrough?: Record<string, string | number>;
  code: string;
  message: string;
}

interface PayloadBase {
  timestamp: string;
  deliveryId: string;
  workspaceId: string;
  requestId: string;
  designId: string;
  version: number;
}

/** The `file.completed` payload (shared/webhooks/README.md#payloads). `params` is never included. */
export interface FileCompletedPayload extends PayloadBase {
  event: "file.completed";
  files: WebhookFileEntry[];
}

/**
 * Platen's `file.failed` (Platen's own definition): `error` says what happened to the request
 * (`PARTIAL_FAILURE` when others succeeded, `FILE_GENERATION_FAILED` when every file of a
 * multiple failed, the file's own code for a single), `files` lists the failed files.
 */
export interface FileFailedPayload extends PayloadBase {
  event: "file.failed";
  error: { code: string; message: string };
  files: WebhookFailedFileEntry[];
}

/** The JSON body of one delivery. */
export type WebhookPayload = FileCompletedPayload | FileFailedPayload;

/** Plaintext passcodes by file id; only the first delivery of a sync request has them. */
export type Passcodes = Record<string, string>;

const passthroughOf = (f: PayloadFile) => (f.passthrough ? { passthrough: f.passthrough } : {});

function completedEntry(f: PayloadFile, siteUrl: string, passcodes: Passcodes): WebhookFileEntry {
  const passcode = f.passcodeHash ? passcodes[f.fileId] : undefined;
  const share: Share = {
    shareType: f.shareType,
    url: shareUrl(siteUrl, f.requestId, f.fileId),
    passcodeEnabled: Boolean(f.passcodeHash),
    ...(passcode && { passcode }),
  };
  return { fileId: f.fileId, fileName: f.fileName, ...passthroughOf(f), share };
}

function failedEntry(f: PayloadFile): WebhookFailedFileEntry {
  const code = f.errorCode ?? "INTERNAL_ERROR";
  return {
    fileId: f.fileId,
    fileName: f.fileName,
    ...passthroughOf(f),
    code,
    message: f.errorMessage ?? catalogue.INTERNAL_ERROR.en,
  };
}

/** The request-level error of `file.failed`, worded like the status endpoint's `error`. */
export function failureError(code: string, failed: WebhookFailedFileEntry[]): { code: string; message: string } {
  if (code === "PARTIAL_FAILURE") return { code, message: catalogue.PARTIAL_FAILURE.en };
  if (code === "FILE_GENERATION_FAILED") return { code, message: "Every file of the request failed." };
  const own = failed.find((f) => f.code === code);
  const known = (catalogue as Record<string, { en: string } | undefined>)[code];
  return { code, message: own?.message ?? known?.en ?? catalogue.INTERNAL_ERROR.en };
}

/**
 * Builds the JSON body of one delivery from the event and the request's file records
 * (records of other files, or expired ones, are left out). Deterministic: every attempt
 * of a delivery sends the same body, except that a redelivery has no passcodes.
 */
export function buildWebhookPayload(
  event: DeliveryEvent,
  records: PayloadFile[],
  siteUrl: string,
  passcodes: Passcodes = {},
): WebhookPayload {
  const byId = new Map(records.map((r) => [r.fileId, r]));
  const files = event.fileIds.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  const base: PayloadBase = {
    timestamp: event.timestamp,
    deliveryId: event.deliveryId,
    workspaceId: event.workspaceId,
    requestId: event.requestId,
    designId: event.designId,
    version: event.version,
  };
  if (event.event === "file.completed") {
    return { event: "file.completed", ...base, files: files.map((f) => completedEntry(f, siteUrl, passcodes)) };
  }
  const failed = files.map(failedEntry);
  return {
    event: "file.failed",
    ...base,
    error: failureError(event.errorCode ?? "INTERNAL_ERROR", failed),
    files: failed,
  };
}
