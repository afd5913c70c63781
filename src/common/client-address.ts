import { BlockList, isIP } from 'node:net';

/**
 * Which address a request comes from, for per-address limits. The connection's address, unless TRUST_PROXY
 * names the proxies in front (IP addresses or CIDR ranges): then the right-most X-Forwarded-For address that
 * is not one of them. Addresses are counted by bucket: an IPv4 address, an IPv6 address's /64 (one host
 * holds a whole /64), an IPv4-mapped IPv6 address as its IPv4 address; a request whose address cannot be
 * read at all counts under one shared bucket (`unknown`), never under none.
 */

/** One TRUST_PROXY entry: an address and how many leading bits of it are the range. */
export interface TrustedProxy {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** The bucket of requests whose address cannot be read: counted together, never let through uncounted. */
export const UNKNOWN_ADDRESS = 'unknown';
/** TRUST_PROXY entries at most (a few proxies or ranges; a long list is a mistake). */
const MAX_TRUSTED = 64;
/** X-Forwarded-For: only its end is read (the client may make the rest as long as it likes). */
const MAX_FORWARDED_CHARS = 2048;
const MAX_HOPS = 32;
/** The longest IP literal with a zone index is well under this. */
const MAX_ADDRESS_CHARS = 64;

export type ParsedAddress = { family: 'ipv4'; address: string } | { family: 'ipv6'; groups: number[] };

/** TRUST_PROXY ("172.30.44.10, 10.0.0.0/8, fd00::/8"): its entries, or what is wrong with it. */
export function parseTrustedProxies(
  text: string,
): { ok: true; proxies: TrustedProxy[] } | { ok: false; problem: string } {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length > MAX_TRUSTED) return { ok: false, problem: `at most ${MAX_TRUSTED} entries` };
  const proxies: TrustedProxy[] = [];
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address) === 4 ? 'ipv4' : isIP(address) === 6 && !address.includes('%') ? 'ipv6' : '';
    const full = family === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? full : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN;
    if (!family || rest.length > 0 || !(prefix >= 0 && prefix <= full))
      return {
        ok: false,
        problem: `"${entry.slice(0, 60)}" is not an IP address or CIDR range (e.g. 172.30.44.10 or 10.0.0.0/8)`,
      };
    proxies.push({ address, prefix, family });
  }
  return { ok: true, proxies };
}

/** The proxies to believe: an empty list believes none (the connection's address is the client's). */
export class ProxyTrust {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(proxies: readonly TrustedProxy[]) {
    for (const p of proxies) this.list.addSubnet(p.address, p.prefix, p.family);
    this.empty = proxies.length === 0;
  }

  trusts(parsed: ParsedAddress): boolean {
    if (this.empty) return false;
    return parsed.family === 'ipv4'
      ? this.list.check(parsed.address, 'ipv4')
      : this.list.check(parsed.groups.map((g) => g.toString(16)).join(':'), 'ipv6');
  }
}

/**
 * The bucket a request is counted in: from the socket's address, or, with trusted proxies, the right-most
 * X-Forwarded-For address that is not a trusted proxy. A forwarded value that is not an IP address ends
 * the walk at the last address read (a trusted proxy's own): believed proxies write addresses, never junk.
 */
export function clientAddress(
  socketAddress: string | undefined,
  forwarded: string | string[] | undefined,
  trust: ProxyTrust,
): string {
  let current = parseAddress(socketAddress);
  if (!current) return UNKNOWN_ADDRESS;
  if (trust.empty || forwarded === undefined) return bucketOf(current);
  const header = Array.isArray(forwarded) ? forwarded.join(',') : forwarded;
  const hops = header.slice(-MAX_FORWARDED_CHARS).split(',').slice(-MAX_HOPS);
  while (trust.trusts(current)) {
    const next = parseAddress(hops.pop());
    if (!next) break;
    current = next;
  }
  return bucketOf(current);
}

/** An IPv4 address as is; an IPv6 address as its /64; an IPv4-mapped IPv6 address as its IPv4 address. */
export function bucketOf(parsed: ParsedAddress): string {
  if (parsed.family === 'ipv4') return parsed.address;
  const hex = parsed.groups.slice(0, 4).map((g) => g.toString(16));
  return `${hex.join(':')}::/64`;
}

/** An IP literal (surrounding spaces, an IPv6 zone index allowed), or undefined for anything else. */
export function parseAddress(raw: string | undefined): ParsedAddress | undefined {
  if (raw === undefined) return undefined;
  const trimmed = raw.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_ADDRESS_CHARS) return undefined;
  const version = isIP(trimmed);
  if (version === 4) return { family: 'ipv4', address: trimmed };
  if (version !== 6) return undefined;
  const groups = ipv6Groups(trimmed.split('%')[0] ?? '');
  if (!groups) return undefined;
  // ::ffff:a.b.c.d (and its hex spelling): an IPv4 client on a dual-stack socket.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi = 0, lo = 0] = groups.slice(6);
    return { family: 'ipv4', address: `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}` };
  }
  return { family: 'ipv6', groups };
}

/** The eight 16-bit groups of an IPv6 literal already checked by `isIP` (`::` and an IPv4 tail allowed). */
function ipv6Groups(address: string): number[] | undefined {
  const halves = address.split('::');
  const parts = (text: string | undefined) => (text ? text.split(':') : []);
  const words = (list: string[]) =>
    list.flatMap((part) => {
      if (!part.includes('.')) return [Number.parseInt(part, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  const head = words(parts(halves[0]));
  const tail = words(parts(halves[1]));
  const gap = 8 - head.length - tail.length;
  if (halves.length > 2 || gap < 0 || (halves.length === 1 && gap !== 0)) return undefined;
  const groups = [...head, ...new Array<number>(gap).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}
