import type { CredentialRecord } from '../credentials/types.ts';

/**
 * How one kind of token endpoint is asked for fresh tokens: answers the record with its new tokens,
 * or throws a {@link RefreshGrantError} saying what the endpoint answered. What follows a failure
 * (the back-off, `needs_reauth`) is decided by `refreshCredential`, for every kind alike.
 */
export type RefreshGrant = (record: CredentialRecord, now: () => number) => Promise<CredentialRecord>;

/** A refresh grant the token endpoint refused or failed. */
export class RefreshGrantError extends Error {
  /** The endpoint's error code (`invalid_grant`, `ratelimited`) or `HTTP <status> ...`; never a secret. */
  readonly error: string;
  /** The refresh token was refused: only a new authorization helps. Otherwise the failure may pass. */
  readonly permanent: boolean;
  /**
   * The record with the tokens the endpoint did issue before the failure (one of two rotations went
   * through): stored, since the refresh token it replaced no longer works.
   */
  readonly rotated: CredentialRecord | undefined;

  constructor(
    error: string,
    options: { permanent?: boolean; explanation?: string; cause?: unknown; rotated?: CredentialRecord } = {},
  ) {
    super(options.explanation ? `${error}: ${options.explanation}` : error, { cause: options.cause });
    this.name = 'RefreshGrantError';
    this.error = error;
    this.permanent = options.permanent ?? false;
    this.rotated = options.rotated;
  }
}
