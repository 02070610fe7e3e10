// Where a webhook may send. A webhook's URL is chosen by a team's admin, but the request leaves from
// the server: without these checks it could reach the server's own loopback, the private network
// behind it or a cloud metadata service. The checks are made on the addresses a name resolves to,
// at creation and again at every delivery (a name may be pointed elsewhere after it was checked), and
// the delivery connects to the address checked (deliver.ts), never to a second lookup's answer.
import dns from 'node:dns/promises';
import net from 'node:net';

export interface TargetPolicy {
  /** Host patterns (`name`, `*.domain`); empty: any host. */
  readonly allowedHosts: readonly string[];
  /** Whether private, loopback, link-local, unique-local, site-local and CGNAT addresses may be reached. */
  readonly allowPrivate: boolean;
}

/** Why a URL or an address may not be used; the message is shown to the admin. */
export class TargetRefused extends Error {}

export const MAX_URL_LENGTH = 2048;

/**
 * One list per family: Node's BlockList checks an IPv4 address against IPv6 rules in its mapped form
 * (::ffff:a.b.c.d), so a single list refusing mapped addresses would refuse every IPv4 address.
 */
interface Ranges {
  v4: net.BlockList;
  v6: net.BlockList;
}

function ranges(v4: string[], v6: string[]): Ranges {
  const lists = { v4: new net.BlockList(), v6: new net.BlockList() };
  for (const [list, subnets, family] of [[lists.v4, v4, 'ipv4'], [lists.v6, v6, 'ipv6']] as const) {
    for (const subnet of subnets) {
      const [address, prefix] = subnet.split('/');
      list.addSubnet(address!, Number(prefix), family);
    }
  }
  return lists;
}

const inRanges = (r: Ranges, address: string): boolean => (net.isIPv4(address) ? r.v4.check(address, 'ipv4') : r.v6.check(address, 'ipv6'));

/**
 * Never reached, whatever the settings: "this host" and unspecified addresses, broadcast, multicast,
 * reserved space, cloud metadata services, and IPv6 forms that carry an IPv4 address inside
 * (IPv4-compatible ::a.b.c.d, mapped ::ffff:a.b.c.d, translated ::ffff:0:a.b.c.d, NAT64, 6to4, Teredo),
 * which would otherwise walk around the IPv4 rules: a host may route them to the IPv4 address.
 */
const NEVER = ranges(
  ['0.0.0.0/8', '169.254.169.254/32', '100.100.100.200/32', '224.0.0.0/4', '240.0.0.0/4', '255.255.255.255/32'],
  ['::/96', '::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96', '64:ff9b:1::/48', '2002::/16', '2001::/32', 'fd00:ec2::254/128', 'ff00::/8'],
);

/** Internal networks: reached only with WEBHOOK_ALLOW_PRIVATE. */
const PRIVATE = ranges(
  [
    '10.0.0.0/8',
    '100.64.0.0/10',
    '127.0.0.0/8',
    '169.254.0.0/16',
    '172.16.0.0/12',
    '192.0.0.0/24',
    '192.0.2.0/24',
    '192.168.0.0/16',
    '198.18.0.0/15',
    '198.51.100.0/24',
    '203.0.113.0/24',
  ],
  // fec0::/10, site-local, is deprecated (RFC 3879) but still routed inside some networks.
  ['::1/128', '100::/64', '2001:db8::/32', 'fc00::/7', 'fe80::/10', 'fec0::/10'],
);

export type AddressClass = 'public' | 'private' | 'never';

/** IPv6 loopback lies inside ::/96 (IPv4-compatible forms) but is loopback, not an IPv4 address. */
const V6_LOOPBACK = ranges([], ['::1/128']);

export function classifyAddress(address: string): AddressClass {
  if (net.isIP(address) === 0) return 'never';
  if (inRanges(NEVER, address) && !inRanges(V6_LOOPBACK, address)) return 'never';
  if (inRanges(PRIVATE, address)) return 'private';
  return 'public';
}

function checkAddress(address: string, policy: TargetPolicy): void {
  const kind = classifyAddress(address);
  if (kind === 'never') throw new TargetRefused(`the address ${address} may never be reached`);
  if (kind === 'private' && !policy.allowPrivate) throw new TargetRefused(`the address ${address} is internal (loopback, private, link-local or shared); set WEBHOOK_ALLOW_PRIVATE=true to allow it`);
}

/** The URL's host without IPv6 brackets or a trailing dot, lower case. */
const bareHost = (url: URL): string => url.hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');

function hostAllowed(host: string, patterns: readonly string[]): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((pattern) => {
    const bare = pattern.replace(/^\[(.*)\]$/, '$1');
    return bare.startsWith('*.') ? host.endsWith(bare.slice(1)) && host.length > bare.length - 1 : host === bare;
  });
}

/** Checks what can be told from the URL alone: its form, scheme, length and host pattern. */
export function checkUrlForm(raw: string, policy: TargetPolicy): URL {
  if (raw.length > MAX_URL_LENGTH) throw new TargetRefused(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TargetRefused('must be an http or https URL');
  // Credentials would be shown to everybody who lists the webhooks: a receiver checks the signature instead.
  if (url.username !== '' || url.password !== '') throw new TargetRefused('must not carry a user name or password');
  if (url.hash !== '') throw new TargetRefused('must not have a fragment');
  const host = bareHost(url);
  if (!hostAllowed(host, policy.allowedHosts)) throw new TargetRefused(`the host ${host} is not in WEBHOOK_ALLOWED_HOSTS`);
  return url;
}

export interface ResolvedTarget {
  url: URL;
  /** The address checked; the delivery connects to it. */
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; `signal` is raised when the answer is no longer wanted. */
export type Lookup = (host: string, signal: AbortSignal) => Promise<{ address: string; family: number }[]>;

/** Codes of a family that has no address or no such name: the other family may still answer. */
const NO_ANSWER = new Set(['ENODATA', 'ENOTFOUND', 'NODATA', 'NOTFOUND']);

/**
 * A and AAAA records from the DNS servers, through c-ares: unlike dns.lookup it does not take one of
 * libuv's four pool threads (shared with file access and compression) for as long as a server is silent,
 * and each query gives up after `timeout`. `localhost` is answered here, as the hosts file would.
 */
export function dnsLookup(deadlineMs: number): Lookup {
  return async (host, signal) => {
    if (host === 'localhost' || host.endsWith('.localhost')) return [{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }];
    const resolver = new dns.Resolver({ timeout: Math.max(50, Math.floor(deadlineMs / 2)), tries: 2 });
    const cancel = () => resolver.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
      const found = [...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []), ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : [])];
      if (found.length > 0) return found;
      // Neither family answered: the more telling failure (a timeout over "no such name") is reported.
      const failures = [v4, v6].flatMap((r) => (r.status === 'rejected' ? [r.reason as NodeJS.ErrnoException] : []));
      throw failures.find((e) => !NO_ANSWER.has(e.code ?? '')) ?? failures[0] ?? new Error('no address');
    } finally {
      signal.removeEventListener('abort', cancel);
    }
  };
}

/** How long resolving a host may take when a webhook is made: the admin is waiting for the answer. */
export const CREATE_RESOLVE_DEADLINE_MS = 3000;

/** A host that did not resolve within its deadline. */
export class ResolveTimedOut extends TargetRefused {}

export interface ResolveOptions {
  /** The whole resolution, every query and retry, ends within this. */
  deadlineMs: number;
  /** Where addresses come from; the DNS servers (dnsLookup) unless a test says otherwise. */
  lookup?: Lookup;
}

async function lookupWithin(host: string, lookup: Lookup, deadlineMs: number): Promise<{ address: string; family: number }[]> {
  const giveUp = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      giveUp.abort();
      reject(new ResolveTimedOut(`the host ${host} could not be resolved within ${deadlineMs} ms`));
    }, deadlineMs);
  });
  try {
    return await Promise.race([lookup(host, giveUp.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Checks the URL and every address its host resolves to (one internal address among public ones
 * refuses it: a client may connect to any of them), and answers the first to connect to.
 */
export async function resolveTarget(raw: string, policy: TargetPolicy, options: ResolveOptions): Promise<ResolvedTarget> {
  const url = checkUrlForm(raw, policy);
  const host = bareHost(url);
  let addresses: { address: string; family: number }[];
  if (net.isIP(host)) {
    addresses = [{ address: host, family: net.isIP(host) }];
  } else {
    try {
      addresses = await lookupWithin(host, options.lookup ?? dnsLookup(options.deadlineMs), options.deadlineMs);
    } catch (error) {
      if (error instanceof TargetRefused) throw error;
      throw new TargetRefused(`the host ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'lookup failed'})`);
    }
    if (addresses.length === 0) throw new TargetRefused(`the host ${host} does not resolve`);
  }
  for (const { address } of addresses) checkAddress(address, policy);
  const first = addresses[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
