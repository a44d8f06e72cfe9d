import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";

// Where the server may send an OpenAPI request (a tool call, a remote spec, a $ref URL). A
// workspace's .arbor/openapi.json names the addresses, so without this rule it could make the
// server ask its cloud's metadata service for credentials (169.254.169.254), or a service that
// listens only on the machine itself. Refused always: link-local addresses (169.254.0.0/16,
// fe80::/10) and the cloud metadata addresses; refused unless ARBOR_OPENAPI_ALLOW_LOOPBACK=1:
// loopback (127.0.0.0/8, ::1, localhost, 0.0.0.0). Checked twice: on the literal host when the
// config is read (a config problem naming the field), and on every address the host resolves to
// right before each request (so a name that resolves to a forbidden address is refused too).

export interface OpenApiNetworkPolicy {
  /** ARBOR_OPENAPI_ALLOW_LOOPBACK=1: loopback hosts may be called (local test servers) */
  allowLoopback: boolean;
}

export type AddressLookup = (hostname: string) => Promise<Array<{ address: string }>>;

/** Host names that name a cloud metadata service (no DNS answer needed to refuse them). */
const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata", "instance-data"]);
/** Cloud metadata addresses outside the link-local ranges (AWS over IPv6, Alibaba). */
const METADATA_ADDRESSES = new Set(["fd00:ec2::254", "100.100.100.200"]);

export const DEFAULT_NETWORK_POLICY: OpenApiNetworkPolicy = { allowLoopback: false };

export function networkPolicyFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): OpenApiNetworkPolicy {
  return { allowLoopback: env.ARBOR_OPENAPI_ALLOW_LOOPBACK?.trim() === "1" };
}

/** Why `address` (an IP literal) may not be called, or undefined when it may. */
export function forbiddenAddress(
  address: string,
  policy: OpenApiNetworkPolicy,
): string | undefined {
  const ip = address.replace(/^\[|\]$/g, "").toLowerCase();
  const version = isIP(ip);
  if (version === 0) return undefined;
  if (version === 6) {
    const mapped = ipv4Inside(ip);
    if (mapped !== undefined) return forbiddenAddress(mapped, policy);
    const groups = expandIpv6(ip);
    if (groups === undefined) return `${address} is not a usable address`;
    if (METADATA_ADDRESSES.has(compressIpv6(groups)))
      return `${address} is a cloud metadata address`;
    if ((groups[0] as number) >= 0xfe80 && (groups[0] as number) <= 0xfebf) {
      return `${address} is link-local (fe80::/10)`;
    }
    const unspecified = groups.every((g) => g === 0);
    const loopback = groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1;
    if ((loopback || unspecified) && !policy.allowLoopback) {
      return `${address} is this machine (loopback; allowed only with ARBOR_OPENAPI_ALLOW_LOOPBACK=1)`;
    }
    return undefined;
  }
  const [a, b] = ip.split(".").map(Number) as [number, number];
  if (METADATA_ADDRESSES.has(ip)) return `${address} is a cloud metadata address`;
  if (a === 169 && b === 254) {
    return ip === "169.254.169.254"
      ? `${address} is a cloud metadata address`
      : `${address} is link-local (169.254.0.0/16)`;
  }
  if ((a === 127 || ip === "0.0.0.0") && !policy.allowLoopback) {
    return `${address} is this machine (loopback; allowed only with ARBOR_OPENAPI_ALLOW_LOOPBACK=1)`;
  }
  return undefined;
}

/** Why the host of `url` may not be called, judged on its text alone (no DNS), or undefined. */
export function forbiddenHost(url: string, policy: OpenApiNetworkPolicy): string | undefined {
  let hostname: string;
  try {
    hostname = new URL(url).hostname.toLowerCase().replace(/\.$/, "");
  } catch {
    return `not a URL: ${url}`;
  }
  if (METADATA_HOSTS.has(hostname)) return `${hostname} is a cloud metadata service`;
  if (hostname === "localhost" || hostname.endsWith(".localhost")) {
    return policy.allowLoopback
      ? undefined
      : `${hostname} is this machine (loopback; allowed only with ARBOR_OPENAPI_ALLOW_LOOPBACK=1)`;
  }
  return forbiddenAddress(hostname, policy);
}

/**
 * Throws when `url`'s host is forbidden, or when any address it resolves to is. Call right before
 * each request: a host name's answer can change between the config check and the call.
 */
export async function assertReachable(
  url: string,
  policy: OpenApiNetworkPolicy,
  lookup: AddressLookup = defaultLookup,
): Promise<void> {
  const literal = forbiddenHost(url, policy);
  if (literal !== undefined) throw new Error(`refused: ${literal}`);
  const hostname = new URL(url).hostname.replace(/^\[|\]$/g, "");
  if (isIP(hostname) !== 0) return;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await lookup(hostname);
  } catch (error) {
    throw new Error(`cannot resolve ${hostname}: ${(error as Error).message}`);
  }
  for (const { address } of addresses) {
    const why = forbiddenAddress(address, policy);
    if (why !== undefined) throw new Error(`refused: ${hostname} resolves to ${why}`);
  }
}

const defaultLookup: AddressLookup = (hostname) => dnsLookup(hostname, { all: true });

/** `::ffff:1.2.3.4` (and its hex form `::ffff:102:304`) → `1.2.3.4`. */
function ipv4Inside(ip: string): string | undefined {
  const dotted =
    /^(?:0*:)*:?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(ip) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(ip);
  if (dotted) return dotted[1];
  const groups = expandIpv6(ip);
  if (groups === undefined) return undefined;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const hi = groups[6] as number;
    const lo = groups[7] as number;
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return undefined;
}

function expandIpv6(ip: string): number[] | undefined {
  const zoneless = ip.split("%")[0] ?? ip;
  const [head = "", tail] = zoneless.split("::");
  const parse = (part: string) => (part === "" ? [] : part.split(":"));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  const groups = [...left, ...Array<string>(missing).fill("0"), ...right].map((g) =>
    Number.parseInt(g, 16),
  );
  return groups.some((g) => Number.isNaN(g) || g < 0 || g > 0xffff) ? undefined : groups;
}

/** The canonical short form (RFC 5952) of eight groups. */
function compressIpv6(groups: number[]): string {
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength && j - i > 1) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart === -1) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
}
