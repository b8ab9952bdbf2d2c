import { timingSafeEqual } from 'node:crypto';

/** The host names a page on this machine is reached by (a page under another name is a DNS rebinding attempt). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Why `request` may not reach the studio's data, or undefined when it may. With a `token`, the
 * request must carry `Authorization: Bearer <token>`; without one, only a page on this machine
 * (its `Host` a loopback name) is answered.
 */
export function accessRefusal(request: Request, token: string | undefined): string | undefined {
  if (token !== undefined) {
    const given = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b)
      ? undefined
      : 'This studio needs its token: open the URL it printed (with #token=...).';
  }
  const host = new URL(request.url).hostname;
  return LOOPBACK_HOSTS.has(host)
    ? undefined
    : `This studio answers only on 127.0.0.1 without a token (the request named ${host}); give it a token to serve other hosts.`;
}
