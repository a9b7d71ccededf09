import { once } from "node:events";
import type { IncomingHttpHeaders } from "node:http";
import http from "node:http";
import type { AddressInfo, LookupFunction } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { LookupAll } from "#shared/webhooks/target-guard.ts";
import {
  checkWebhookUrl,
  isPublicAddress,
  pinnedLookup,
  resolvePublicTarget,
  WebhookTargetError,
} from "#shared/webhooks/target-guard.ts";

describe("isPublicAddress", () => {
  // Each range: its first address, an inner one and its last one, plus the first address after it.
  it.each([
    ["0.0.0.0/8", ["0.0.0.0", "0.1.2.3", "0.255.255.255"]],
    ["10/8", ["10.0.0.0", "10.20.30.40", "10.255.255.255"]],
    ["100.64/10", ["100.64.0.0", "100.100.100.100", "100.127.255.255"]],
    ["127/8", ["127.0.0.0", "127.0.0.1", "127.255.255.255"]],
    ["169.254/16", ["169.254.0.0", "169.254.169.254", "169.254.255.255"]],
    ["172.16/12", ["172.16.0.0", "172.20.1.1", "172.31.255.255"]],
    ["192.0.0/24", ["192.0.0.0", "192.0.0.8", "192.0.0.255"]],
    ["192.0.2/24", ["192.0.2.0", "192.0.2.1", "192.0.2.255"]],
    ["192.168/16", ["192.168.0.0", "192.168.1.1", "192.168.255.255"]],
    ["198.18/15", ["198.18.0.0", "198.19.1.1", "198.19.255.255"]],
    ["198.51.100/24", ["198.51.100.0", "198.51.100.7", "198.51.100.255"]],
    ["203.0.113/24", ["203.0.113.0", "203.0.113.9", "203.0.113.255"]],
    ["224/4", ["224.0.0.0", "239.1.2.3", "239.255.255.255"]],
    ["240/4", ["240.0.0.0", "250.1.2.3", "255.255.255.254"]],
    ["broadcast", ["255.255.255.255"]],
  ])("refuses IPv4 %s", (_range, addresses) => {
    for (const address of addresses) expect(isPublicAddress(address), address).toBe(false);
  });

  it.each([
    "1.1.1.1",
    "8.8.8.8",
    "9.255.255.255",
    "11.0.0.0",
    "100.63.255.255",
    "100.128.0.0",
    "126.255.255.255",
    "128.0.0.0",
    "169.253.255.255",
    "169.255.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "192.0.1.0",
    "192.0.3.0",
    "192.167.255.255",
    "192.169.0.0",
    "198.17.255.255",
    "198.20.0.0",
    "198.51.99.255",
    "198.51.101.0",
    "203.0.112.255",
    "203.0.114.0",
    "223.255.255.255",
  ])("accepts public IPv4 %s (including neighbours of private ranges)", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    ["::", ["::", "0:0:0:0:0:0:0:0"]],
    ["::1", ["::1", "0:0:0:0:0:0:0:1"]],
    ["fc00::/7", ["fc00::", "fd12:3456:789a::1", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]],
    ["fe80::/10", ["fe80::", "fe80::1%eth0", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]],
    ["ff00::/8", ["ff00::", "ff02::1", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]],
    ["2001:db8::/32", ["2001:db8::", "2001:db8:1234::1", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"]],
    ["100::/64", ["100::", "100::1", "100::ffff:ffff:ffff:ffff"]],
    ["64:ff9b::/96 with private v4", ["64:ff9b::127.0.0.1", "64:ff9b::a00:1", "64:ff9b::192.168.1.1"]],
    ["IPv4-mapped private v4", ["::ffff:127.0.0.1", "::ffff:7f00:1", "::FFFF:10.0.0.1", "::ffff:169.254.169.254"]],
    ["IPv4-compatible private v4", ["::127.0.0.1", "::10.0.0.1"]],
    ["fec0::/10 (deprecated site-local)", ["fec0::", "fec0::1", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]],
    [
      "2002::/16 (6to4), whatever v4 it carries",
      ["2002::", "2002:808:808::1", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    ],
    ["2001::/32 (Teredo)", ["2001::", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff"]],
    ["64:ff9b:1::/48 (local-use NAT64)", ["64:ff9b:1::", "64:ff9b:1::808:808", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"]],
  ])("refuses IPv6 %s", (_range, addresses) => {
    for (const address of addresses) expect(isPublicAddress(address), address).toBe(false);
  });

  it.each([
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff",
    "2001:db9::",
    "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "2001:1::1",
    "2003::1",
    "64:ff9b:2::1",
    "100:0:0:1::",
    "64:ff9b::8.8.8.8",
    "64:ff9b::101:101",
    "::ffff:8.8.8.8",
    "::ffff:101:101",
  ])("accepts public IPv6 %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(["", "localhost", "example.com", "[::1]", "127.0.0.1:80", "2130706433", "0x7f.1", "1.2.3"])(
    "returns false for non-addresses like %j",
    (value) => {
      expect(isPublicAddress(value)).toBe(false);
    },
  );
});

describe("checkWebhookUrl", () => {
  const production = { env: "production" };
  const local = { env: "local" };

  it("accepts a plain https URL and returns it parsed", () => {
    const result = checkWebhookUrl("https://hooks.example.com/platen?x=1", production);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url.hostname).toBe("hooks.example.com");
  });

  it.each([
    ["not a URL", "hooks.example.com/platen"],
    ["http in production", "http://hooks.example.com/"],
    ["ftp", "ftp://hooks.example.com/"],
    ["javascript:", "javascript:alert(1)"],
    ["a user name", "https://user@hooks.example.com/"],
    ["user and password", "https://user:pass@hooks.example.com/"],
    ["a fragment", "https://hooks.example.com/#frag"],
    ["an empty fragment", "https://hooks.example.com/#"],
    ["more than 2048 characters", `https://hooks.example.com/${"a".repeat(2048)}`],
    ["localhost in production", "https://localhost/"],
    ["localhost. in production", "https://localhost./"],
    ["a .localhost name", "https://api.localhost/"],
    ["loopback IPv4 in production", "https://127.0.0.1/"],
    ["loopback IPv6 in production", "https://[::1]/"],
    ["IPv4-mapped loopback", "https://[::ffff:127.0.0.1]/"],
    ["decimal IPv4 spelling", "https://2130706433/"],
    ["hex IPv4 spelling", "https://0x7f.1/"],
    ["octal IPv4 spelling", "https://0177.0.0.1/"],
    ["short IPv4 spelling", "https://127.1/"],
    ["IPv4 with a trailing dot", "https://127.0.0.1./"],
    ["cloud metadata address", "https://169.254.169.254/latest/meta-data/"],
    ["hex-spelled metadata address", "https://0xa9fea9fe/"],
    ["private IPv4", "https://10.0.0.5/"],
    ["unique-local IPv6", "https://[fd00::1]/"],
    ["NAT64 private", "https://[64:ff9b::10.0.0.1]/"],
  ])("refuses %s in production", (_label, url) => {
    const result = checkWebhookUrl(url, production);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toEqual(expect.any(String));
  });

  it("accepts exactly 2048 characters and refuses 2049", () => {
    const base = "https://hooks.example.com/";
    expect(checkWebhookUrl(base + "a".repeat(2048 - base.length), production).ok).toBe(true);
    expect(checkWebhookUrl(base + "a".repeat(2049 - base.length), production).ok).toBe(false);
  });

  it("treats unknown environments like production", () => {
    expect(checkWebhookUrl("http://localhost:3000/", { env: "staging" }).ok).toBe(false);
    expect(checkWebhookUrl("https://127.0.0.1/", { env: "staging" }).ok).toBe(false);
  });

  it.each(["https://1.1.1.1/hook", "https://[2606:4700:4700::1111]:8443/hook", "https://hooks.example.com:8443/"])(
    "accepts public targets like %s",
    (url) => {
      expect(checkWebhookUrl(url, production).ok).toBe(true);
    },
  );

  it.each([
    "http://localhost:3000/hook",
    "http://localhost./hook",
    "http://127.0.0.1:3000/hook",
    "http://[::1]:3000/hook",
    "https://localhost/hook",
    "https://127.0.0.1/hook",
    "https://0x7f.0.0.1/hook",
  ])("allows loopback %s in env local", (url) => {
    expect(checkWebhookUrl(url, local).ok).toBe(true);
  });

  it.each([
    ["http to a public name", "http://hooks.example.com/"],
    ["http to other loopback addresses", "http://127.0.0.2/"],
    ["http to a .localhost name", "http://api.localhost/"],
    ["private addresses", "https://192.168.1.10/"],
    ["credentials", "http://user:pw@localhost/"],
    ["fragments", "http://localhost/#x"],
  ])("still refuses %s in env local", (_label, url) => {
    expect(checkWebhookUrl(url, local).ok).toBe(false);
  });
});

describe("resolvePublicTarget", () => {
  const fakeLookup = (...addresses: string[]) =>
    vi.fn<LookupAll>(async () => addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));
  const production = (lookup: LookupAll) => ({ env: "production", lookup });

  it("returns the first address when all are public, asking for all addresses", async () => {
    const lookup = fakeLookup("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c");
    await expect(resolvePublicTarget(new URL("https://hooks.example.com/"), production(lookup))).resolves.toEqual({
      address: "93.184.215.14",
      family: 4,
    });
    expect(lookup).toHaveBeenCalledWith("hooks.example.com", { all: true });
  });

  it.each([
    ["a public and a private IPv4", ["93.184.215.14", "10.0.0.7"]],
    ["a private address first", ["192.168.0.1", "93.184.215.14"]],
    ["a public IPv4 and loopback IPv6", ["93.184.215.14", "::1"]],
    ["a public IPv6 and a mapped metadata address", ["2606:4700:4700::1111", "::ffff:169.254.169.254"]],
  ])("refuses a host resolving to %s", async (_label, addresses) => {
    const promise = resolvePublicTarget(new URL("https://rebind.example.com/"), production(fakeLookup(...addresses)));
    await expect(promise).rejects.toThrow(WebhookTargetError);
    await expect(promise).rejects.toMatchObject({
      name: "WebhookTargetError",
      reason: expect.stringContaining("non-public"),
    });
  });

  it("refuses a host with no addresses", async () => {
    await expect(resolvePublicTarget(new URL("https://empty.example.com/"), production(fakeLookup()))).rejects.toThrow(
      WebhookTargetError,
    );
  });

  it("wraps resolver failures, keeping the cause", async () => {
    const failure = Object.assign(new Error("getaddrinfo ENOTFOUND"), { code: "ENOTFOUND" });
    const lookup = vi.fn<LookupAll>(async () => Promise.reject(failure));
    const promise = resolvePublicTarget(new URL("https://nx.example.com/"), production(lookup));
    await expect(promise).rejects.toMatchObject({ name: "WebhookTargetError", cause: failure });
  });

  it("refuses a malformed resolver answer", async () => {
    const lookup = vi.fn<LookupAll>(async () => [{ address: "not-an-ip", family: 4 }]);
    await expect(resolvePublicTarget(new URL("https://odd.example.com/"), production(lookup))).rejects.toThrow(
      WebhookTargetError,
    );
  });

  it("re-checks the URL itself before resolving", async () => {
    const lookup = fakeLookup("93.184.215.14");
    await expect(resolvePublicTarget(new URL("http://hooks.example.com/"), production(lookup))).rejects.toMatchObject({
      reason: "scheme must be https",
    });
    expect(lookup).not.toHaveBeenCalled();
  });

  it("does not resolve IP literals", async () => {
    const lookup = fakeLookup("10.0.0.1");
    await expect(resolvePublicTarget(new URL("https://[2606:4700:4700::1111]/"), production(lookup))).resolves.toEqual({
      address: "2606:4700:4700::1111",
      family: 6,
    });
    expect(lookup).not.toHaveBeenCalled();
  });

  it("allows loopback for localhost in env local only", async () => {
    const lookup = fakeLookup("::1", "127.0.0.1");
    await expect(resolvePublicTarget(new URL("http://localhost:3000/"), { env: "local", lookup })).resolves.toEqual({
      address: "::1",
      family: 6,
    });
    await expect(resolvePublicTarget(new URL("https://localhost/"), production(lookup))).rejects.toThrow(
      WebhookTargetError,
    );
  });

  it("refuses other names resolving to loopback even in env local", async () => {
    const lookup = fakeLookup("127.0.0.1");
    await expect(resolvePublicTarget(new URL("https://evil.example.com/"), { env: "local", lookup })).rejects.toThrow(
      WebhookTargetError,
    );
  });

  it("does not let env local allow private non-loopback answers for localhost", async () => {
    const lookup = fakeLookup("127.0.0.1", "10.0.0.1");
    await expect(resolvePublicTarget(new URL("http://localhost/"), { env: "local", lookup })).rejects.toThrow(
      WebhookTargetError,
    );
  });

  it("uses the real resolver by default", async () => {
    await expect(resolvePublicTarget(new URL("http://localhost/"), { env: "local" })).resolves.toMatchObject({
      address: expect.stringMatching(/^(127\.|::1$)/),
    });
  });
});

describe("pinnedLookup", () => {
  it("answers both callback shapes asynchronously", async () => {
    const lookup = pinnedLookup("93.184.215.10", 4);
    let calledSynchronously = true;
    const single = new Promise<unknown[]>((resolve) => lookup("any.example", {}, (...args) => resolve(args)));
    const all = new Promise<unknown[]>((resolve) => lookup("any.example", { all: true }, (...args) => resolve(args)));
    const settled = new Promise<boolean>((resolve) => lookup("any.example", {}, () => resolve(calledSynchronously)));
    calledSynchronously = false;
    expect(await single).toEqual([null, "93.184.215.10", 4]);
    expect(await all).toEqual([null, [{ address: "93.184.215.10", family: 4 }]]);
    expect(await settled).toBe(false);
  });

  it("refuses an address that does not match its family", () => {
    expect(() => pinnedLookup("::1", 4)).toThrow(WebhookTargetError);
    expect(() => pinnedLookup("example.com", 4)).toThrow(WebhookTargetError);
  });

  describe("with a real http.request against a loopback server", () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = http.createServer((req, res) => {
      seen.push(req.headers);
      res.end("pinned");
    });
    let port = 0;

    beforeAll(async () => {
      server.listen(0, "127.0.0.1");
      await once(server, "listening");
      port = (server.address() as AddressInfo).port;
    });
    afterAll(async () => {
      server.close();
      await once(server, "close");
    });

    it.each([true, false])(
      "connects to the pinned address and keeps the original Host (autoSelectFamily %s)",
      async (autoSelectFamily) => {
        const url = new URL(`http://webhook.example.test:${port}/hook`);
        const lookup = vi.fn(pinnedLookup("127.0.0.1", 4));
        const { status, body } = await post(url, lookup, autoSelectFamily);
        expect([status, body]).toEqual([200, "pinned"]);
        expect(seen.at(-1)?.host).toBe(`webhook.example.test:${port}`);
        // Node asks for an address list exactly when autoSelectFamily is on; both shapes must connect.
        expect(lookup).toHaveBeenCalledWith("webhook.example.test", expect.anything(), expect.any(Function));
        expect(lookup.mock.calls[0]?.[1].all === true).toBe(autoSelectFamily);
      },
    );
  });
});

/** Minimal POST through node:http, the way a webhook sender would use the pinned lookup. */
async function post(url: URL, lookup: LookupFunction, autoSelectFamily: boolean) {
  // autoSelectFamily goes through a dedicated agent: it is a socket option, not in http's request types.
  const agent = new http.Agent({ autoSelectFamily });
  try {
    const req = http.request(url, { method: "POST", lookup, agent });
    req.end("{}");
    const [res] = (await once(req, "response")) as [http.IncomingMessage];
    let body = "";
    for await (const chunk of res) body += chunk;
    return { status: res.statusCode, body };
  } finally {
    agent.destroy();
  }
}
