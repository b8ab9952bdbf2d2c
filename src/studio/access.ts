import { timingSafeEqual } from 'node:crypto';

/** The host names a page on this machine is reached by (a page under another name is a DNS rebinding attempt). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Why `request` may not reach the studio's data, or undefined when it may. A request a page of
 * another site sends (its `Origin` another host) is refused: it could decide a call or forget a
 * memory in your name. With a `token`, the request must carry `Authorization: Bearer <token>`;
 * without one, only a page on this machine (its `Host` a loopback name) is answered.
 */
export function accessRefusal(
  request: Request,
  token: string | undefined,
): { status: 401 | 403; message: string } | undefined {
  const url = new URL(request.url);
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== url.origin) {
    return {
      status: 403,
      message: `This studio answers its own page only (the request came from ${origin}).`,
    };
  }
  if (token !== undefined) {
    const given = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
    const a = Buffer.from(given);
    const b = Buffer.from(token);
    return a.length === b.length && timingSafeEqual(a, b)
      ? undefined
      : { status: 401, message: 'This studio needs its token: open the URL it printed (with #token=...).' };
  }
  return LOOPBACK_HOSTS.has(url.hostname)
    ? undefined
    : {
        status: 403,
        message: `This studio answers only on 127.0.0.1 without a token (the request named ${url.hostname}); give it a token to serve other hosts.`,
      };
}
