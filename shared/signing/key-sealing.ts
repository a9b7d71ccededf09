import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { KMSClientConfig } from "@aws-sdk/client-kms";
import * as z from "zod";
import { ConfigError, type Environment, environment } from "#shared/config/settings.ts";

/**
 * A signing key at rest (shared/signing/README.md#identities): AES-256-GCM under a data key the workspace
 * cannot read, bound to its workspace and identity (the AAD, and KMS's encryption context), so a sealed
 * key copied into another workspace's item does not open.
 */
export const sealedKeySchema = z.object({
  /** `local`: the data key is the deployment's key file; `kms`: a KMS data key, stored encrypted. */
  scheme: z.enum(["local", "kms"]),
  iv: z.string(),
  tag: z.string(),
  data: z.string(),
  /** kms: the data key as KMS encrypted it (base64). */
  encryptedKey: z.string().optional(),
});
export type SealedKey = z.infer<typeof sealedKeySchema>;

/** Whose key it is: bound into the seal. */
export interface SealContext {
  workspaceId: string;
  identityId: string;
}

/** Seals and opens signing keys; `keySealerFromEnvironment` picks the deployment's. */
export interface KeySealer {
  seal(plain: Buffer, context: SealContext): Promise<SealedKey>;
  /** @throws when the seal does not open (another context, a changed byte, another key) */
  unseal(sealed: SealedKey, context: SealContext): Promise<Buffer>;
}

const aad = (context: SealContext) => Buffer.from(`platen-signing-key\n${context.workspaceId}\n${context.identityId}`);

function encrypt(key: Buffer, plain: Buffer, context: SealContext) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(aad(context));
  const data = Buffer.concat([cipher.update(plain), cipher.final()]);
  return { iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), data: data.toString("base64") };
}

function decrypt(key: Buffer, sealed: SealedKey, context: SealContext): Buffer {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(sealed.iv, "base64"))
    .setAAD(aad(context))
    .setAuthTag(Buffer.from(sealed.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64")), decipher.final()]);
}

/**
 * The local stack's sealer: one 256-bit key in a file of the data folder (made on first use, mode 0600).
 * Anyone who can read the data folder can open the keys: it is a development stack's protection.
 */
export function fileKeySealer(path: string): KeySealer {
  let key: Buffer | undefined;
  const keyOf = (): Buffer => {
    if (key) return key;
    if (!existsSync(path)) {
      mkdirSync(dirname(path), { recursive: true });
      // wx: two processes starting at once never overwrite each other's key.
      try {
        writeFileSync(path, randomBytes(32).toString("base64"), { flag: "wx", mode: 0o600 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    chmodSync(path, 0o600);
    const read = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
    if (read.length !== 32) throw new ConfigError(`${path} must hold a base64 256-bit key`);
    key = read;
    return key;
  };
  return {
    seal: async (plain, context) => ({ scheme: "local", ...encrypt(keyOf(), plain, context) }),
    unseal: async (sealed, context) => {
      if (sealed.scheme !== "local")
        throw new Error("this key was sealed with KMS, and this deployment has no KMS key");
      return decrypt(keyOf(), sealed, context);
    },
  };
}

/**
 * AWS: envelope encryption under the stack's KMS key. Each seal asks KMS for a data key (GenerateDataKey,
 * AES_256) with the workspace and identity as its encryption context, encrypts locally and keeps the
 * encrypted data key beside the ciphertext; opening asks KMS to decrypt it with the same context. The
 * client is loaded on first use, by the functions that hold identities (`clientConfig`: the region and
 * credentials of the environment unless given, as tests give an endpoint).
 */
export function kmsKeySealer(keyId: string, clientConfig: KMSClientConfig = {}): KeySealer {
  let loaded: Promise<{ sdk: typeof import("@aws-sdk/client-kms"); client: import("@aws-sdk/client-kms").KMSClient }>;
  const kms = () =>
    (loaded ??= import("@aws-sdk/client-kms").then((sdk) => ({ sdk, client: new sdk.KMSClient(clientConfig) })));
  const encryptionContext = (context: SealContext) => ({
    purpose: "platen-signing-key",
    workspaceId: context.workspaceId,
    identityId: context.identityId,
  });
  return {
    seal: async (plain, context) => {
      const { sdk, client } = await kms();
      const out = await client.send(
        new sdk.GenerateDataKeyCommand({
          KeyId: keyId,
          KeySpec: "AES_256",
          EncryptionContext: encryptionContext(context),
        }),
      );
      if (!out.Plaintext || !out.CiphertextBlob) throw new Error("KMS returned no data key");
      const dataKey = Buffer.from(out.Plaintext);
      try {
        return {
          scheme: "kms",
          ...encrypt(dataKey, plain, context),
          encryptedKey: Buffer.from(out.CiphertextBlob).toString("base64"),
        };
      } finally {
        dataKey.fill(0);
      }
    },
    unseal: async (sealed, context) => {
      if (sealed.scheme !== "kms" || !sealed.encryptedKey) throw new Error("this key was not sealed with KMS");
      const { sdk, client } = await kms();
      const out = await client.send(
        new sdk.DecryptCommand({
          KeyId: keyId,
          CiphertextBlob: Buffer.from(sealed.encryptedKey, "base64"),
          EncryptionContext: encryptionContext(context),
        }),
      );
      if (!out.Plaintext) throw new Error("KMS returned no data key");
      const dataKey = Buffer.from(out.Plaintext);
      try {
        return decrypt(dataKey, sealed, context);
      } finally {
        dataKey.fill(0);
      }
    },
  };
}

let fromEnvironment: KeySealer | undefined;

/**
 * The deployment's sealer: KMS when `PLATEN_SIGNING_KMS_KEY_ID` is set (the CDK stack sets it), else the
 * key file `PLATEN_SIGNING_KEY_FILE` (the local stack sets it inside its data folder).
 * @throws ConfigError when neither is set
 */
export function keySealerFromEnvironment(env: Environment = environment()): KeySealer {
  if (env === environment() && fromEnvironment) return fromEnvironment;
  const kmsKey = env.PLATEN_SIGNING_KMS_KEY_ID;
  const file = env.PLATEN_SIGNING_KEY_FILE;
  let sealer: KeySealer;
  if (kmsKey) sealer = kmsKeySealer(kmsKey);
  else if (file) sealer = fileKeySealer(file);
  else
    throw new ConfigError(
      "signing identities need a key to seal them: set PLATEN_SIGNING_KMS_KEY_ID (a KMS key id or ARN) or PLATEN_SIGNING_KEY_FILE (a key file path)",
    );
  if (env === environment()) fromEnvironment = sealer;
  return sealer;
}
