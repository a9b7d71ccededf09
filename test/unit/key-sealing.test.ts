import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SealContext, type SealedKey, kmsKeySealer } from "#shared/signing/key-sealing.ts";

/**
 * The AWS sealer (shared/signing/README.md#identities) through the real KMS client against a small KMS of
 * this file: it speaks KMS's JSON protocol and, like KMS, opens a data key only under the encryption context
 * it was made with. What is checked is the envelope: one GenerateDataKey per seal, the data key stored only
 * encrypted, the workspace and identity bound on both layers.
 */

interface KmsCall {
  target: string;
  body: { KeyId?: string; KeySpec?: string; EncryptionContext?: Record<string, string>; CiphertextBlob?: string };
}

/** A KMS holding one symmetric key: data keys are AES-GCM-wrapped with the context as AAD. */
function startKms(keyId: string): Promise<{ server: Server; endpoint: string; calls: KmsCall[] }> {
  const master = randomBytes(32);
  const calls: KmsCall[] = [];
  const aad = (context: Record<string, string> = {}) =>
    Buffer.from(JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b))));
  const answer = (target: string, body: KmsCall["body"]): [number, object] => {
    if (body.KeyId !== keyId) return [400, { __type: "NotFoundException", message: "no such key" }];
    if (target === "TrentService.GenerateDataKey") {
      const plain = randomBytes(body.KeySpec === "AES_256" ? 32 : 16);
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", master, iv).setAAD(aad(body.EncryptionContext));
      const wrapped = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return [200, { KeyId: keyId, Plaintext: plain.toString("base64"), CiphertextBlob: wrapped.toString("base64") }];
    }
    if (target === "TrentService.Decrypt") {
      const blob = Buffer.from(body.CiphertextBlob ?? "", "base64");
      try {
        const decipher = createDecipheriv("aes-256-gcm", master, blob.subarray(0, 12))
          .setAAD(aad(body.EncryptionContext))
          .setAuthTag(blob.subarray(-16));
        const plain = Buffer.concat([decipher.update(blob.subarray(12, -16)), decipher.final()]);
        return [200, { KeyId: keyId, Plaintext: plain.toString("base64"), EncryptionAlgorithm: "SYMMETRIC_DEFAULT" }];
      } catch {
        return [400, { __type: "InvalidCiphertextException", message: "" }];
      }
    }
    return [400, { __type: "UnsupportedOperationException", message: target }];
  };
  const server = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      const target = String(req.headers["x-amz-target"]);
      const body = JSON.parse(text) as KmsCall["body"];
      calls.push({ target, body });
      const [status, json] = answer(target, body);
      res.writeHead(status, { "content-type": "application/x-amz-json-1.1" }).end(JSON.stringify(json));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, calls, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

const keyId = "arn:aws:kms:ap-northeast-1:111122223333:key/test";
const context: SealContext = { workspaceId: "W1", identityId: "I1" };
let kms: Awaited<ReturnType<typeof startKms>>;
let sealer: ReturnType<typeof kmsKeySealer>;

beforeAll(async () => {
  kms = await startKms(keyId);
  sealer = kmsKeySealer(keyId, {
    endpoint: kms.endpoint,
    region: "ap-northeast-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    maxAttempts: 1,
  });
});
afterAll(() => new Promise<void>((done) => kms.server.close(() => done())));

describe("sealing with KMS envelope encryption", () => {
  it("seals with a fresh data key under the workspace and identity, keeps it only encrypted, and opens", async () => {
    const plain = randomBytes(1200);
    const before = kms.calls.length;
    const sealed = await sealer.seal(plain, context);
    const generate = kms.calls.slice(before);
    expect(generate).toEqual([
      {
        target: "TrentService.GenerateDataKey",
        body: {
          KeyId: keyId,
          KeySpec: "AES_256",
          EncryptionContext: { purpose: "platen-signing-key", workspaceId: "W1", identityId: "I1" },
        },
      },
    ]);
    expect(sealed.scheme).toBe("kms");
    expect(Buffer.from(sealed.data, "base64").equals(plain)).toBe(false);
    expect(JSON.stringify(sealed)).not.toContain(plain.toString("base64").slice(0, 40));
    expect((await sealer.unseal(sealed, context)).equals(plain)).toBe(true);
    expect(kms.calls.at(-1)).toMatchObject({
      target: "TrentService.Decrypt",
      body: { EncryptionContext: { purpose: "platen-signing-key", workspaceId: "W1", identityId: "I1" } },
    });
    // Two seals of the same key are unrelated: a data key and an IV each.
    const again = await sealer.seal(plain, context);
    expect(again.encryptedKey).not.toBe(sealed.encryptedKey);
    expect(again.data).not.toBe(sealed.data);
  });

  it("does not open under another workspace or identity: KMS refuses the data key", async () => {
    const sealed = await sealer.seal(Buffer.from("pkcs8"), context);
    await expect(sealer.unseal(sealed, { ...context, workspaceId: "W2" })).rejects.toThrow();
    await expect(sealer.unseal(sealed, { ...context, identityId: "I2" })).rejects.toThrow();
    expect(kms.calls.at(-1)?.body.EncryptionContext).toMatchObject({ identityId: "I2" });
  });

  it("does not open a changed byte, another seal's data key, or a key sealed locally", async () => {
    const sealed = await sealer.seal(Buffer.from("pkcs8"), context);
    const other = await sealer.seal(Buffer.from("other"), context);
    const flipped = Buffer.from(sealed.data, "base64");
    flipped[0] = flipped[0]! ^ 1;
    const tampered: SealedKey[] = [
      { ...sealed, data: flipped.toString("base64") },
      { ...sealed, encryptedKey: other.encryptedKey },
      { ...sealed, scheme: "local" },
    ];
    for (const bad of tampered) await expect(sealer.unseal(bad, context)).rejects.toThrow();
    expect((await sealer.unseal(sealed, context)).toString()).toBe("pkcs8");
  });
});
