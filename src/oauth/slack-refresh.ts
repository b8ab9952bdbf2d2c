import type { CredentialRecord } from '../credentials/types.ts';
import { httpRequest } from '../http/request.ts';
import { RefreshGrantError } from './refresh-grant.ts';

/** Slack's answer to `oauth.v2.access` with `grant_type=refresh_token` (token rotation). */
interface SlackRefreshResponse {
  ok: boolean;
  error?: string;
  token_type?: string;
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  authed_user?: { access_token?: string; refresh_token?: string; expires_in?: number };
}

/** Slack errors after which only a new authorization helps. */
const PERMANENT = new Set(['invalid_refresh_token', 'invalid_grant', 'token_revoked', 'invalid_client_id']);

/** Whether a record's tokens come from Slack's OAuth (its token endpoint is `oauth.v2.access`). */
export function isSlackRecord(record: CredentialRecord): boolean {
  const endpoint = record.metadata?.token_endpoint;
  return typeof endpoint === 'string' && /\/api\/oauth\.v2\.access$/.test(new URL(endpoint).pathname);
}

/**
 * Slack token rotation: Slack answers HTTP 200 with `ok:false` for errors, and `token_type` `bot` or
 * `user`, which a generic OAuth client refuses. Rotates the record's token (a bot `xoxe.xoxb-` or,
 * for a user-only install, a user `xoxe.xoxp-` token) and, when the record holds one, the user
 * token used for search (`metadata.user_token` with `metadata.user_refresh_token`). A
 * {@link RefreshGrantError} says what Slack answered; `refreshCredential` decides what follows.
 */
export async function refreshSlackRecord(
  record: CredentialRecord,
  now: () => number,
): Promise<CredentialRecord> {
  const metadata = record.metadata ?? {};
  const main = await rotate(record, record.refresh_token!);
  const after = (seconds: number) => new Date(now() + seconds * 1000).toISOString();
  const rotatedMain: CredentialRecord = {
    ...record,
    token: main.access_token,
    refresh_token: main.refresh_token ?? record.refresh_token,
    metadata: {
      ...metadata,
      ...(main.expires_in ? { expires_at: after(main.expires_in) } : {}),
    },
  };
  const userRefresh = metadata.user_refresh_token;
  if (typeof userRefresh !== 'string') return rotatedMain;
  let user: Awaited<ReturnType<typeof rotate>>;
  try {
    user = await rotate(record, userRefresh);
  } catch (error) {
    // The main token was rotated and its old refresh token is spent: keep the new pair.
    if (!(error instanceof RefreshGrantError)) throw error;
    throw new RefreshGrantError(error.error, {
      permanent: error.permanent,
      explanation: 'the user token (for search) was not rotated; the main token was',
      cause: error,
      rotated: rotatedMain,
    });
  }
  return {
    ...rotatedMain,
    metadata: {
      ...rotatedMain.metadata,
      user_token: user.access_token,
      user_refresh_token: user.refresh_token ?? userRefresh,
      ...(user.expires_in ? { user_expires_at: after(user.expires_in) } : {}),
    },
  };
}

async function rotate(
  record: CredentialRecord,
  refreshToken: string,
): Promise<{ access_token: string; refresh_token?: string; expires_in?: number }> {
  const metadata = record.metadata ?? {};
  const clientId = String(metadata.client_id);
  const clientSecret = typeof metadata.client_secret === 'string' ? metadata.client_secret : '';
  const response = await httpRequest({
    method: 'POST',
    url: String(metadata.token_endpoint),
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }).toString(),
    idempotent: true,
  });
  let body: SlackRefreshResponse | undefined;
  try {
    body = response.json() as SlackRefreshResponse;
  } catch {
    body = undefined;
  }
  if (body?.ok) {
    const access = body.access_token ?? body.authed_user?.access_token;
    if (access) {
      return {
        access_token: access,
        refresh_token: body.refresh_token ?? body.authed_user?.refresh_token,
        expires_in: body.expires_in ?? body.authed_user?.expires_in,
      };
    }
  }
  const error = body?.error ?? `HTTP ${response.status} from Slack's oauth.v2.access`;
  const permanent = PERMANENT.has(error);
  throw new RefreshGrantError(error, {
    permanent,
    ...(permanent ? { explanation: 'Slack refused to rotate the token' } : {}),
  });
}
