import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUser } from "../helpers/identity-fixtures.ts";
import { type SharedStack, sharedStack } from "../helpers/shared-stack.ts";
import { useStackIdentityKeys } from "../helpers/management-fixtures.ts";
import { useStackEmulators } from "../helpers/stack-clients.ts";
import { createTenant } from "../helpers/sync-fixtures.ts";

/**
 * Wrong passwords cannot lock the real user out (shared/identity/README.md#sessions-and-login): attempts are
 * limited per source address and account, so ten bad tries from one address stop that address only; the
 * slower per-account back-off stops unknown devices, but a correct password from a device the account signed
 * in on before (its device cookie) still passes. Each client address is a different loopback source address.
 */

let stack: SharedStack;
let user: { email: string; password: string };

beforeAll(async () => {
  stack = await sharedStack();
  useStackEmulators(stack.dataDir);
  useStackIdentityKeys(stack);
  const tenant = await createTenant(stack, "lockout");
  user = await makeUser({ [tenant.workspaceId]: "admin" });
});

afterAll(() => stack?.release());

/** POST the site's login form from `localAddress`; the status and the cookies it sets. */
function siteLogin(
  localAddress: string,
  email: string,
  password: string,
  cookie = "",
): Promise<{ status: number; cookies: string[] }> {
  const body = new URLSearchParams({ email, password }).toString();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: stack.port,
        path: "/login",
        method: "POST",
        localAddress,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          "content-length": Buffer.byteLength(body),
          ...(cookie && { cookie }),
        },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, cookies: [res.headers["set-cookie"] ?? []].flat() }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const cookieNamed = (cookies: string[], name: string) =>
  cookies.find((c) => c.startsWith(`${name}=`))?.split(";")[0] ?? "";

describe("no victim lockout", () => {
  it("10 bad attempts from address X lock X for that account; the real user from another address signs in", async () => {
    for (let i = 0; i < 10; i++) expect((await siteLogin("127.0.0.2", user.email, "wrong-password")).status).toBe(401);
    expect((await siteLogin("127.0.0.2", user.email, user.password)).status).toBe(429);
    expect((await siteLogin("127.0.0.3", user.email, user.password)).status).toBe(303);
  });

  it("many addresses start the account's back-off: unknown devices wait, the device cookie still signs in", async () => {
    const other = await makeUser({});
    const first = await siteLogin("127.0.0.4", other.email, other.password);
    expect(first.status).toBe(303);
    const device = cookieNamed(first.cookies, "platen_device");
    expect(device).toMatch(/^platen_device=.+/);
    for (const address of ["127.0.0.5", "127.0.0.6", "127.0.0.7"])
      for (let i = 0; i < 10; i++) expect((await siteLogin(address, other.email, "wrong-password")).status).toBe(401);
    // Unknown device, right password: the back-off (the same answer as a wrong one, so it tells nothing).
    expect((await siteLogin("127.0.0.8", other.email, other.password)).status).toBe(429);
    expect((await siteLogin("127.0.0.8", other.email, "wrong-password")).status).toBe(429);
    // The device this account signed in on before passes with the right password, and only with it.
    expect((await siteLogin("127.0.0.8", other.email, "wrong-password", device)).status).toBe(429);
    expect((await siteLogin("127.0.0.8", other.email, other.password, device)).status).toBe(303);
    // Another account's device cookie is no pass.
    const stranger = await siteLogin("127.0.0.9", user.email, user.password);
    const strangersDevice = cookieNamed(stranger.cookies, "platen_device");
    expect((await siteLogin("127.0.0.9", other.email, other.password, strangersDevice)).status).toBe(429);
  });
});
