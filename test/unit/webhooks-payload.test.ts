import { describe, expect, it } from "vitest";
import type { FileRecord } from "#shared/generation/store/index.ts";
import { activeSigningSecrets } from "#shared/webhooks/endpoint-input.ts";
import type { DeliveryEvent } from "#shared/webhooks/generation-event.ts";
import { buildWebhookPayload } from "#shared/webhooks/payload.ts";

const record = (fileId: string, over: Partial<FileRecord> = {}): FileRecord => ({
  requestId: "REQ0000000000001",
  fileId,
  workspaceId: "WS00000000000001",
  designId: "DESIGN0000000001",
  version: 3,
  fileName: `file ${fileId}`,
  index: 0,
  status: "done",
  source: "sync",
  mode: "multiple",
  shareType: "public",
  createdAt: "2026-01-01T00:00:00.000Z",
  expiresAt: 2_000_000_000,
  ...over,
});

const event = (over: Partial<DeliveryEvent> = {}): DeliveryEvent => ({
  deliveryId: "dlv_1",
  event: "file.completed",
  timestamp: "2026-01-01T00:00:05.000Z",
  workspaceId: "WS00000000000001",
  requestId: "REQ0000000000001",
  designId: "DESIGN0000000001",
  version: 3,
  fileIds: ["A", "B"],
  ...over,
});

describe("buildWebhookPayload: file.completed (see shared/webhooks/README.md#payloads)", () => {
  const records = [
    record("A", { passthrough: { order: "PO-1", amount: 12 }, passcodeHash: "scrypt$x$y" }),
    record("B", { shareType: "workspace" }),
    record("C"),
  ];

  it("has the spec fields, file entries as in X-File-Mapping and never params", () => {
    const payload = buildWebhookPayload(event(), records, "https://app.example");
    expect(payload).toEqual({
      event: "file.completed",
      timestamp: "2026-01-01T00:00:05.000Z",
      deliveryId: "dlv_1",
      workspaceId: "WS00000000000001",
      requestId: "REQ0000000000001",
      designId: "DESIGN0000000001",
      version: 3,
      files: [
        {
          fileId: "A",
          fileName: "file A",
          passthrough: { order: "PO-1", amount: 12 },
          share: { shareType: "public", url: "https://app.example/file/REQ0000000000001/A", passcodeEnabled: true },
        },
        {
          fileId: "B",
          fileName: "file B",
          share: { shareType: "workspace", url: "https://app.example/file/REQ0000000000001/B", passcodeEnabled: false },
        },
      ],
    });
    expect(JSON.stringify(payload)).not.toContain("params");
  });

  it("carries a passcode only when handed one (first delivery of a sync request) and only for passcode files", () => {
    const payload = buildWebhookPayload(event(), records, "https://app.example", { A: "Secret1234", B: "NotEnabled" });
    if (payload.event !== "file.completed") throw new Error("wrong event");
    expect(payload.files[0]!.share.passcode).toBe("Secret1234");
    expect(payload.files[1]!.share).not.toHaveProperty("passcode");
  });
});

describe("buildWebhookPayload: file.failed", () => {
  const failed = [
    record("A", {
      status: "failed",
      errorCode: "PARAMS_TYPE_MISMATCH",
      errorMessage: "A params value has the wrong type: params.請求先 (expected string).",
      passthrough: { row: 7 },
    }),
    record("B"),
  ];

  it("partial failure: error PARTIAL_FAILURE and the failed files with their own codes", () => {
    const payload = buildWebhookPayload(
      event({ event: "file.failed", errorCode: "PARTIAL_FAILURE", fileIds: ["A"] }),
      failed,
      "https://app.example",
    );
    expect(payload).toMatchObject({
      event: "file.failed",
      error: { code: "PARTIAL_FAILURE", message: "Some files of the request failed." },
      files: [
        {
          fileId: "A",
          fileName: "file A",
          passthrough: { row: 7 },
          code: "PARAMS_TYPE_MISMATCH",
          message: expect.stringContaining("請求先"),
        },
      ],
    });
    expect(payload.files).toHaveLength(1);
  });

  it("every file of a multiple failed: FILE_GENERATION_FAILED; a single keeps its file's message", () => {
    const all = buildWebhookPayload(
      event({ event: "file.failed", errorCode: "FILE_GENERATION_FAILED", fileIds: ["A"] }),
      failed,
      "s",
    );
    expect(all).toMatchObject({
      error: { code: "FILE_GENERATION_FAILED", message: "Every file of the request failed." },
    });
    const single = buildWebhookPayload(
      event({ event: "file.failed", errorCode: "PARAMS_TYPE_MISMATCH", fileIds: ["A"] }),
      failed,
      "s",
    );
    expect(single).toMatchObject({
      error: { code: "PARAMS_TYPE_MISMATCH", message: expect.stringContaining("請求先") },
    });
  });
});

describe("activeSigningSecrets", () => {
  const endpoint = { secret: "new", previousSecret: "old", previousSecretExpiresAt: "2026-01-02T00:00:00.000Z" };

  it("signs with both secrets during the rotation overlap, then with the current one only", () => {
    expect(activeSigningSecrets(endpoint, new Date("2026-01-01T12:00:00Z"))).toEqual(["new", "old"]);
    expect(activeSigningSecrets(endpoint, new Date("2026-01-02T00:00:01Z"))).toEqual(["new"]);
    expect(activeSigningSecrets({ secret: "only" }, new Date())).toEqual(["only"]);
  });
});
