import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
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
  ['::ffff:0:0', 96],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/**
 * Refuses URLs that are not http(s) or whose host resolves to a loopback or private address, so a
 * model cannot make the worker fetch its own network (SSRF). `allowPrivate` lifts the address check.
 */
export async function assertPublicUrl(url: URL, allowPrivate = false): Promise<void> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolInputError(`Only http and https URLs can be opened, not ${url.protocol}`);
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await lookup(host, { all: true }).catch(() => []);
  if (addresses.length === 0) throw new ToolInputError(`The host ${url.hostname} could not be resolved.`);
  for (const { address, family } of addresses) {
    if (PRIVATE.check(address, family === 6 ? 'ipv6' : 'ipv4')) {
      throw new ToolInputError(
        `${url.hostname} is a loopback or private address (${address}); opening it is not allowed ` +
          '(set allowPrivateNetworks on the tool to permit it).',
      );
    }
  }
}
