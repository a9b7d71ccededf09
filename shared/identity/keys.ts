import { createECDH, createHash, hkdfSync, randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { JWK } from "jose";
import { identityKeySource } from "#shared/aws/config.ts";

/**
 * What is kept: random seeds, the first one current, older ones still trusted (rotation).
 * In AWS a Secrets Manager secret generated at deploy time holds `{"seed": "..."}`; locally
 * `$PLATEN_DATA_DIR/identity-keys.json` has the same shape. Every key is derived from the
 * seeds, so nothing is generated per cold start and every container agrees.
 */
export interface KeySeeds {
  seed: string;
  previousSeeds?: string[];
}

/** The keys of the authorization server: ES256 signing keys (first signs) and cookie keys (first signs). */
export interface IdentityKeys {
  signingKeys: (JWK & { kid: string })[];
  cookieKeys: string[];
}

const derive = (seed: string, purpose: string, length = 32): Buffer =>
  Buffer.from(hkdfSync("sha256", seed, "platen-identity", purpose, length));

/** P-256 key from a seed: HKDF gives the private scalar, ECDH computes the public point. */
function signingKey(seed: string): JWK & { kid: string } {
  const d = derive(seed, "oidc-signing-es256");
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(d);
  const point = ecdh.getPublicKey();
  const x = point.subarray(1, 33).toString("base64url");
  const y = point.subarray(33, 65).toString("base64url");
  const kid = createHash("sha256").update(`${x}.${y}`).digest("base64url").slice(0, 16);
  return { kty: "EC", crv: "P-256", x, y, d: d.toString("base64url"), kid, alg: "ES256", use: "sig" };
}

/** Derives every key from the seeds (pure: same seeds, same keys). */
export function deriveKeys(seeds: KeySeeds): IdentityKeys {
  const all = [seeds.seed, ...(seeds.previousSeeds ?? [])].filter(Boolean);
  return { signingKeys: all.map(signingKey), cookieKeys: all.map((s) => derive(s, "cookies").toString("base64url")) };
}

function parseSeeds(raw: string, where: string): KeySeeds {
  const parsed = JSON.parse(raw) as Partial<KeySeeds>;
  if (typeof parsed.seed !== "string" || parsed.seed.length < 32)
    throw new Error(`${where} must hold {"seed": "<at least 32 random characters>"}`);
  return {
    seed: parsed.seed,
    previousSeeds: (parsed.previousSeeds ?? []).filter((s) => typeof s === "string" && s.length >= 32),
  };
}

async function readSeeds(): Promise<KeySeeds> {
  const { file, secretId, region } = identityKeySource();
  if (file) return parseSeeds(readFileSync(file, "utf8"), file);
  if (!secretId)
    throw new Error("Missing environment variable PLATEN_IDENTITY_SECRET_ID (or PLATEN_IDENTITY_KEYS_FILE locally)");
  const client = new SecretsManagerClient({ region });
  const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  return parseSeeds(out.SecretString ?? "", `secret ${secretId}`);
}

let cached: Promise<IdentityKeys> | undefined;

/** The keys, read once per container (a failed read is retried by the next call). */
export function identityKeys(): Promise<IdentityKeys> {
  cached ??= readSeeds()
    .then(deriveKeys)
    .catch((err) => {
      cached = undefined;
      throw err;
    });
  return cached;
}

/** Local stack: creates the key file once (owner-only), then keeps it for ever. */
export function ensureLocalKeyFile(path: string): void {
  if (existsSync(path)) return;
  const seeds: KeySeeds = { seed: randomBytes(48).toString("base64url"), previousSeeds: [] };
  writeFileSync(path, `${JSON.stringify(seeds, null, 2)}\n`, { mode: 0o600, flag: "wx" });
}
