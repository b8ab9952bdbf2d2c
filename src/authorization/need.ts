import { CredentialError, PermissionError, type AuthorizationNeed } from '../errors.ts';

/**
 * What a tool's error says the user must authorize, when a grant would fix it: a missing record,
 * a refused refresh token, a missing scope (see {@link AuthorizationNeed}). Looks through `cause`s,
 * so a wrapped error still counts.
 */
export function authorizationNeedOf(error: unknown): AuthorizationNeed | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if ((e instanceof CredentialError || e instanceof PermissionError) && e.authorization)
      return e.authorization;
  }
  return undefined;
}
