import { ToolInputError } from '../../errors.ts';

/** What a path may not contain: a scheme (`http:`), a network-path reference (`//host`), a backslash (some parsers read it as `/`), a `..` segment, a control character. */
const ESCAPES = [
  /^[a-z][a-z0-9+.-]*:/i,
  /^[/\\]{2}/,
  /\\/,
  /(^|\/)\.\.(\/|$)/,
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
  /[\u0000-\u001f\u007f]/,
];

/**
 * Joins a `custom_api` path to the record's base URL, refusing any path that could leave it: another
 * origin (`http://…`, `//host`, `\\host`), `..` segments, control characters, and the same tricks
 * percent-encoded once or several times. Checked again on the parsed URL.
 */
export function resolveCustomApiUrl(baseUrl: string, path: string): URL {
  let decoded = path;
  for (let round = 0; round < 4; round++) {
    const refusal = ESCAPES.find((pattern) => pattern.test(decoded.trim()));
    if (refusal) {
      throw new ToolInputError(
        `The path ${JSON.stringify(path)} is refused: it must be a path under the API's base URL ` +
          '(like /v1/items?status=open), not a URL, a //host, a backslash or a .. segment.',
      );
    }
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      throw new ToolInputError(`The path ${JSON.stringify(path)} has broken percent-encoding.`);
    }
    if (next === decoded) break;
    decoded = next;
  }
  const base = new URL(baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const relative = path.startsWith('/') ? path : `/${path}`;
  const url = new URL(`${base.origin}${basePath}${relative}`);
  if (url.origin !== base.origin || !`${url.pathname}/`.startsWith(`${basePath}/`)) {
    throw new ToolInputError(
      `The path ${JSON.stringify(path)} leaves the API's base URL ${base.origin}${basePath}.`,
    );
  }
  return url;
}
