import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which IP addresses a webhook may be sent to. Only public unicast addresses are acceptable: a
 * subscriber's URL must never reach into our own network, the Lambda's neighbours or the cloud's
 * metadata service (server-side request forgery). Everything that is not clearly public is refused.
 */
export type AddressClass =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'cgnat'
  | 'multicast'
  | 'reserved'
  | 'not_an_ip';

interface Range {
  base: bigint;
  prefix: number;
  bits: 32 | 128;
}

type Rule = [cidr: string, classify: AddressClass | ((embedded: bigint) => AddressClass)];

function parseIPv4(address: string): bigint {
  return address.split('.').reduce((value, octet) => (value << 8n) | BigInt(Number(octet)), 0n);
}

/** Eight 16-bit groups, `::` expanded, an embedded dotted IPv4 tail and a zone (`%eth0`) handled. */
function parseIPv6(address: string): bigint {
  let text = address.split('%')[0] ?? '';
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/)?.[1];
  if (dotted) {
    const v4 = parseIPv4(dotted);
    text = `${text.slice(0, -dotted.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].reduce(
    (value, group) => (value << 16n) | BigInt(Number.parseInt(group, 16)),
    0n,
  );
}

function range(cidr: string): Range {
  const [address = '', prefix = ''] = cidr.split('/');
  const v4 = isIPv4(address);
  return { base: v4 ? parseIPv4(address) : parseIPv6(address), prefix: Number(prefix), bits: v4 ? 32 : 128 };
}

function inRange(value: bigint, { base, prefix, bits }: Range): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === base >> shift;
}

/** Most specific first: the first matching range decides. */
const IPV4_RULES: Rule[] = [
  ['169.254.169.254/32', 'metadata'], // EC2, ECS, EKS and most clouds' instance metadata
  ['169.254.170.2/32', 'metadata'], // ECS task metadata and credentials
  ['0.0.0.0/32', 'unspecified'],
  ['0.0.0.0/8', 'reserved'], // "this network"
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'], // shared address space, also Alibaba's metadata 100.100.100.200
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link_local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'], // IETF protocol assignments
  ['192.0.2.0/24', 'reserved'], // documentation
  ['192.88.99.0/24', 'reserved'], // former 6to4 relay anycast
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'], // benchmarking
  ['198.51.100.0/24', 'reserved'], // documentation
  ['203.0.113.0/24', 'reserved'], // documentation
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'], // includes the broadcast address 255.255.255.255
];

const embeddedAt = (shift: bigint) => (value: bigint) => classifyIPv4Value((value >> shift) & 0xffffffffn);

const IPV6_RULES: Rule[] = [
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::ffff:0:0/96', embeddedAt(0n)], // IPv4-mapped: the socket talks IPv4 to the embedded address
  ['::ffff:0:0:0/96', embeddedAt(0n)], // IPv4-translated
  ['::/96', 'reserved'], // IPv4-compatible, deprecated
  ['64:ff9b::/96', embeddedAt(0n)], // NAT64 well-known prefix: reaches the embedded IPv4 address
  ['64:ff9b:1::/48', 'reserved'], // local-use NAT64
  ['100::/64', 'reserved'], // discard-only
  ['2001:db8::/32', 'reserved'], // documentation
  ['2001::/32', 'reserved'], // Teredo tunnels
  ['2002::/16', embeddedAt(80n)], // 6to4: the IPv4 address follows the prefix
  ['fd00:ec2::254/128', 'metadata'], // EC2 instance metadata over IPv6
  ['fc00::/7', 'private'], // unique local
  ['fe80::/10', 'link_local'],
  ['fec0::/10', 'private'], // site-local, deprecated
  ['ff00::/8', 'multicast'],
];

const GLOBAL_UNICAST = range('2000::/3');

const compiled = (rules: Rule[]) => rules.map(([cidr, classify]) => ({ range: range(cidr), classify }));
const ipv4Rules = compiled(IPV4_RULES);
const ipv6Rules = compiled(IPV6_RULES);

function classifyIPv4Value(value: bigint): AddressClass {
  const rule = ipv4Rules.find((r) => inRange(value, r.range));
  if (!rule) return 'public';
  return typeof rule.classify === 'function' ? rule.classify(value) : rule.classify;
}

function classifyIPv6Value(value: bigint): AddressClass {
  const rule = ipv6Rules.find((r) => inRange(value, r.range));
  if (rule) return typeof rule.classify === 'function' ? rule.classify(value) : rule.classify;
  // Only 2000::/3 is allocated for global unicast; anything else is not a public host.
  return inRange(value, GLOBAL_UNICAST) ? 'public' : 'reserved';
}

/** Strips the brackets of a URL's IPv6 host (`[::1]`) and an IPv6 zone. */
function bare(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}

export function isIpLiteral(address: string): boolean {
  const text = bare(address);
  return isIPv4(text) || isIPv6(text);
}

export function classifyAddress(address: string): AddressClass {
  const text = bare(address);
  if (isIPv4(text)) return classifyIPv4Value(parseIPv4(text));
  if (isIPv6(text)) return classifyIPv6Value(parseIPv6(text));
  return 'not_an_ip';
}

/** True for every address a webhook must not be sent to, including anything that is not an IP. */
export function isBlockedAddress(address: string): boolean {
  return classifyAddress(address) !== 'public';
}
