/**
 * The scopes a `WWW-Authenticate: Bearer error="insufficient_scope", scope="a b"` answer asks for
 * (RFC 6750 section 3.1): `undefined` when the header does not say insufficient_scope, an empty list
 * when it says so without naming the scopes.
 */
export function insufficientScopeOf(headers: Record<string, string>): string[] | undefined {
  const header = headers['www-authenticate'];
  if (!header || !/error\s*=\s*"?insufficient_scope"?/i.test(header)) return undefined;
  const scope = /scope\s*=\s*"([^"]*)"/i.exec(header)?.[1] ?? /scope\s*=\s*([^\s,]+)/i.exec(header)?.[1];
  return (scope ?? '').split(/\s+/).filter(Boolean);
}
