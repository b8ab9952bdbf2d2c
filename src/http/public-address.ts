import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { ToolInputError } from '../errors.ts';

/** Loopback, private, link-local, carrier-grade NAT, unspecified and unique-local ranges. */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  // No ::ffff:0:0/96 rule: BlockList checks IPv4-mapped addresses (::ffff:127.0.0.1) against the IPv4
  // rules above already, and such a rule would match every IPv4 address, public ones included.
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** Resolves a host name to all its addresses, like `dns.lookup(host, { all: true })`. */
export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver (getaddrinfo), all addresses. */
export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * Refuses URLs that are not http(s) or whose host resolves to a loopback or private address, so a
 * model cannot make the worker fetch its own network (SSRF). `allowPrivate` lifts the address check.
 * A check before connecting is not enough on its own (DNS rebinding: the name may resolve to a
 * public address now and to 127.0.0.1 when the connection is made): connect with
 * {@link publicOnlyLookup} too, which checks the address actually connected to.
 */
export async function assertPublicUrl(
  url: URL,
  allowPrivate = false,
  resolve: HostResolver = systemResolver,
): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolInputError(`Only http and https URLs can be opened, not ${url.protocol}`);
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await resolve(host).catch(() => []);
  if (addresses.length === 0) throw new ToolInputError(`The host ${url.hostname} could not be resolved.`);
  assertPublicAddresses(url.hostname, addresses);
}

/**
 * A connect-time `lookup` for sockets (undici's `connect.lookup`): resolves the host and refuses the
 * connection when any address it would use is loopback or private. Runs for every connection, so
 * for every redirect hop, on the address really connected to.
 */
export function publicOnlyLookup(resolve: HostResolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        const family = typeof options === 'object' ? options.family : undefined;
        const usable = addresses.filter((a) => !family || family === 0 || a.family === family);
        if (usable.length === 0) throw new ToolInputError(`The host ${hostname} could not be resolved.`);
        assertPublicAddresses(hostname, usable);
        if (typeof options === 'object' && options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((error: unknown) => callback(error as NodeJS.ErrnoException, '', 0));
  };
}

function assertPublicAddresses(
  hostname: string,
  addresses: Array<{ address: string; family: number }>,
): void {
  for (const { address, family } of addresses) {
    if (PRIVATE.check(address, family === 6 ? 'ipv6' : 'ipv4')) {
      throw new ToolInputError(
        `${hostname} is a loopback or private address (${address}); opening it is not allowed ` +
          '(set allowPrivateNetworks on the tool to permit it).',
      );
    }
  }
}
