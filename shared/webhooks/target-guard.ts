import type { LookupAddress } from "node:dns";
import { promises as dnsPromises } from "node:dns";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";

/** Environments where plain-http loopback targets are allowed (developer machines only). */
type TargetEnv = "local" | "production" | string;

/** Options shared by {@link checkWebhookUrl} and {@link resolvePublicTarget}. */
export interface WebhookTargetOptions {
  /** Only `"local"` relaxes the rules (loopback targets); any other value is treated as production. */
  env: TargetEnv;
}

/** Resolver used by {@link resolvePublicTarget}; `dns.promises.lookup` fits, tests inject fakes. */
export type LookupAll = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

/** Options of {@link resolvePublicTarget}. */
export interface ResolvePublicTargetOptions extends WebhookTargetOptions {
  /** Defaults to `dns.promises.lookup`. */
  lookup?: LookupAll;
}

/** The checked address a webhook connection must be pinned to. */
export interface PinnedTarget {
  address: string;
  family: 4 | 6;
}

/** A webhook target was refused; `reason` says why in words safe to show to the customer. */
export class WebhookTargetError extends Error {
  override name = "WebhookTargetError";
  readonly reason: string;

  constructor(reason: string, options?: ErrorOptions) {
    super(`webhook target refused: ${reason}`, options);
    this.reason = reason;
  }
}

const maxUrlLength = 2048;
/** Host names that may be used over plain http, and that may resolve to loopback, in env "local". */
const localHostnames = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

// IPv4 ranges that are not publicly routable (RFC 6890 special-purpose registry and friends).
const privateV4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4], // also covers 255.255.255.255
];

// IPv6 ranges that are never public on their own (embedded-IPv4 prefixes are handled separately).
const privateV6: ReadonlyArray<readonly [string, number]> = [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["100::", 64],
  ["fec0::", 10], // deprecated site-local (RFC 3879): still private wherever it is routed
  // Tunnels that carry an IPv4 destination inside (6to4, Teredo) and the local-use NAT64
  // prefix (RFC 8215): where packets go depends on relays, so they are refused outright.
  ["2002::", 16],
  ["2001::", 32],
  ["64:ff9b:1::", 48],
];

// Prefixes whose low 32 bits are an IPv4 address that decides where packets really go.
const embeddedV4Prefixes: ReadonlyArray<readonly [string, number]> = [
  ["::ffff:0:0", 96], // IPv4-mapped
  ["64:ff9b::", 96], // NAT64 well-known prefix
  ["::", 96], // deprecated IPv4-compatible; some stacks still route it to the IPv4 host
];

function parseV4(ip: string): number {
  return ip.split(".").reduce((acc, octet) => acc * 256 + Number(octet), 0);
}

/** Expands a valid IPv6 address (as accepted by `net.isIP`) to a 128-bit integer. */
function parseV6(ip: string): bigint {
  let text = ip.replace(/%.*$/, "").toLowerCase(); // zone ids do not change the address
  const lastColon = text.lastIndexOf(":");
  if (text.includes(".", lastColon)) {
    // Trailing dotted quad (::ffff:1.2.3.4): rewrite it as the two hex groups it stands for.
    const v4 = parseV4(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros: string[] = Array(8 - headGroups.length - tailGroups.length).fill("0");
  const groups = tail === undefined ? headGroups : [...headGroups, ...zeros, ...tailGroups];
  return groups.reduce((acc, group) => (acc << 16n) | BigInt(Number.parseInt(group, 16)), 0n);
}

const v4Ranges = privateV4.map(([base, bits]) => ({ base: parseV4(base), bits }));
const v6Ranges = privateV6.map(([base, bits]) => ({ base: parseV6(base), bits }));
const v6Embedding = embeddedV4Prefixes.map(([base, bits]) => ({ base: parseV6(base), bits }));

function inV4Range(value: number, { base, bits }: { base: number; bits: number }): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(value / size) === Math.floor(base / size);
}

function inV6Range(value: bigint, { base, bits }: { base: bigint; bits: number }): boolean {
  const shift = BigInt(128 - bits);
  return value >> shift === base >> shift;
}

/**
 * Whether an IP address is publicly routable, i.e. safe for Platen to connect to on a customer's
 * behalf. Private, loopback, link-local, CGNAT, documentation, benchmark, multicast and reserved
 * ranges are refused; IPv4-mapped, NAT64 (64:ff9b::/96) and IPv4-compatible IPv6 addresses are
 * judged by their embedded IPv4 address.
 *
 * @param ip - A textual IPv4 or IPv6 address (no brackets). Anything else returns `false`.
 */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) {
    const value = parseV4(ip);
    return !v4Ranges.some((range) => inV4Range(value, range));
  }
  if (family !== 6) return false;
  const value = parseV6(ip);
  if (v6Ranges.some((range) => inV6Range(value, range))) return false;
  if (v6Embedding.some((range) => inV6Range(value, range))) {
    const v4 = Number(value & 0xffffffffn);
    return !v4Ranges.some((range) => inV4Range(v4, range));
  }
  return true;
}

function isLoopback(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return inV4Range(parseV4(ip), { base: parseV4("127.0.0.0"), bits: 8 });
  return family === 6 && parseV6(ip) === 1n;
}

/** Host name as a bare string: no IPv6 brackets, no trailing root dot (`localhost.` is `localhost`). */
function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/** Host-level rules; the URL is already known to be http(s) without credentials. */
function checkHost(url: URL, local: boolean): string | undefined {
  const host = bareHostname(url);
  const isLocalHost = localHostnames.has(host);
  if (url.protocol === "http:" && !(local && isLocalHost)) {
    return local ? "http is only allowed to localhost, 127.0.0.1 and [::1]" : "scheme must be https";
  }
  if (host === "localhost" || host.endsWith(".localhost")) {
    return local && host === "localhost" ? undefined : "localhost targets are not allowed";
  }
  // WHATWG URL has already turned decimal/hex/octal IPv4 spellings into dotted quads here.
  if (isIP(host) !== 0 && !isPublicAddress(host) && !(local && isLocalHost)) {
    return "IP address is not public";
  }
  return undefined;
}

/**
 * Syntactic checks of a webhook target URL, done when the customer saves it (no DNS involved).
 * Requires https, no credentials, no fragment, at most 2048 characters, and public IP literals.
 * In env `"local"`, `http:` and loopback are allowed for `localhost`, `127.0.0.1` and `[::1]`.
 *
 * @param url - The URL as entered.
 * @param options - `env`: the deployment environment.
 * @returns The parsed URL, or a human-readable `reason` for refusing it.
 */
export function checkWebhookUrl(
  url: string,
  { env }: WebhookTargetOptions,
): { ok: true; url: URL } | { ok: false; reason: string } {
  if (typeof url !== "string" || url.length > maxUrlLength) {
    return { ok: false, reason: `URL must be a string of at most ${maxUrlLength} characters` };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: "not a valid URL" };
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return { ok: false, reason: "scheme must be https" };
  if (parsed.username !== "" || parsed.password !== "") {
    return { ok: false, reason: "URL must not contain credentials" };
  }
  // `hash` is "" for a bare trailing "#", so look at the serialisation; "#" cannot occur elsewhere in it.
  if (parsed.href.includes("#")) return { ok: false, reason: "URL must not contain a fragment" };
  if (parsed.href.length > maxUrlLength) return { ok: false, reason: `URL must be at most ${maxUrlLength} characters` };
  const hostProblem = checkHost(parsed, env === "local");
  return hostProblem === undefined ? { ok: true, url: parsed } : { ok: false, reason: hostProblem };
}

/** Resolves every address of `hostname`, wrapping DNS failures so callers see one error class. */
async function lookupAll(hostname: string, lookup: LookupAll): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await lookup(hostname, { all: true });
  } catch (error) {
    throw new WebhookTargetError("host name could not be resolved", { cause: error });
  }
  // Guards against custom resolvers; dns.promises.lookup with { all: true } always returns an array.
  if (!Array.isArray(addresses)) throw new WebhookTargetError("resolver returned an invalid answer");
  return addresses;
}

function toPinnedTarget({ address, family }: LookupAddress): PinnedTarget {
  const detected = isIP(address);
  if (detected === 0 || (family !== 4 && family !== 6) || detected !== family) {
    throw new WebhookTargetError("resolver returned an invalid address");
  }
  return { address, family };
}

/**
 * Resolves a webhook host right before delivery and returns the address to pin the connection to.
 * Every resolved address must be public (a single private one refuses the target, since the OS
 * could pick any of them); in env `"local"` loopback is allowed for localhost/127.0.0.1/[::1].
 * Connect with {@link pinnedLookup} so a second DNS answer cannot swap in another address.
 *
 * @param url - The target URL; it is re-checked with {@link checkWebhookUrl}.
 * @param options - `env`, and `lookup` (defaults to `dns.promises.lookup`).
 * @throws {@link WebhookTargetError} with a `reason` when the target is refused or cannot be resolved.
 */
export async function resolvePublicTarget(
  url: URL,
  { env, lookup = dnsPromises.lookup }: ResolvePublicTargetOptions,
): Promise<PinnedTarget> {
  const checked = checkWebhookUrl(url.href, { env });
  if (!checked.ok) throw new WebhookTargetError(checked.reason);
  const host = bareHostname(checked.url);
  const allowLoopback = env === "local" && localHostnames.has(host);
  // IP literals were judged by checkWebhookUrl; no DNS answer can change them.
  const literalFamily = isIP(host);
  if (literalFamily === 4 || literalFamily === 6) return { address: host, family: literalFamily };
  const targets = (await lookupAll(host, lookup)).map(toPinnedTarget);
  for (const { address } of targets) {
    if (!isPublicAddress(address) && !(allowLoopback && isLoopback(address))) {
      throw new WebhookTargetError(`host name resolves to a non-public address (${address})`);
    }
  }
  const [first] = targets;
  if (first === undefined) throw new WebhookTargetError("host name has no addresses");
  return first;
}

/**
 * A `lookup` for `http.request` / `https.request` (or `net`/`tls.connect`) options that always
 * answers with the address checked by {@link resolvePublicTarget}. The socket therefore connects to
 * that address while the Host header and TLS SNI/certificate check still use the original host
 * name, leaving no window for DNS rebinding between check and connect.
 *
 * Node calls it with `{ all: true }` when `autoSelectFamily` is on (the default since Node 20) and
 * expects an address list; otherwise it expects `(err, address, family)`. Both are handled.
 *
 * @param address - The checked IP address.
 * @param family - Its family, 4 or 6.
 * @throws {@link WebhookTargetError} when `address` is not an IP address of that family.
 */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  if (isIP(address) !== family)
    throw new WebhookTargetError(`pinned address ${address} is not an IPv${family} address`);
  return (_hostname, options, callback) => {
    // Answer asynchronously like the real resolver, so callers never see a synchronous callback.
    process.nextTick(() => {
      if (options?.all === true) callback(null, [{ address, family }]);
      else callback(null, address, family);
    });
  };
}
