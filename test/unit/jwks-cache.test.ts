import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { JWKS_CACHE_MAX_AGE_MS, remoteKeySet } from "#shared/auth/jwks-cache.ts";

/**
 * The bearer check's key set cache: a signing key removed from the authorization server's JWKS stops
 * verifying tokens once the cache lifetime (minutes, not a day) has passed.
 */

let server: Server;
let served: { keys: JWK[] } = { keys: [] };
let fetches = 0;
let url: URL;

beforeAll(async () => {
  server = createServer((_req, res) => {
    fetches += 1;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(served));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`);
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));
afterEach(() => {
  vi.useRealTimers();
});

async function signingKey(kid: string) {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256", use: "sig" } };
}

const token = (privateKey: CryptoKey, kid: string) =>
  new SignJWT({ sub: "u" })
    .setProtectedHeader({ alg: "ES256", kid })
    .setIssuedAt()
    .setExpirationTime("2h")
    .sign(privateKey);

describe("JWKS cache lifetime", () => {
  it("is at most 10 minutes", () => {
    expect(JWKS_CACHE_MAX_AGE_MS).toBeLessThanOrEqual(10 * 60_000);
  });

  it("a removed signing key still verifies 9 minutes after the fetch, no more after 11", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T00:00:00Z") });
    const old = await signingKey("old");
    const next = await signingKey("next");
    served = { keys: [old.jwk, next.jwk] };
    const keys = remoteKeySet(url);
    const signed = await token(old.privateKey, "old");
    await expect(jwtVerify(signed, keys)).resolves.toBeTruthy();
    const fetched = fetches;

    // The authorization server drops the key; within the cache lifetime the cached set still answers.
    served = { keys: [next.jwk] };
    vi.setSystemTime(Date.now() + 9 * 60_000);
    await expect(jwtVerify(signed, keys)).resolves.toBeTruthy();
    expect(fetches).toBe(fetched);

    // Eleven minutes after the fetch the set is fetched again and the removed key is no longer trusted.
    vi.setSystemTime(Date.now() + 2 * 60_000);
    await expect(jwtVerify(signed, keys)).rejects.toThrow();
    expect(fetches).toBeGreaterThan(fetched);
    // The key that stayed keeps working.
    await expect(jwtVerify(await token(next.privateKey, "next"), keys)).resolves.toBeTruthy();
  });
});
