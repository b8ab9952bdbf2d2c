import * as oauth from 'oauth4webapi';
import type { CredentialRecord } from '../credentials/types.ts';
import { RefreshGrantError } from './refresh-grant.ts';

/**
 * The standard OAuth 2.0 refresh grant (RFC 6749 section 6) with oauth4webapi
 * (`refreshTokenGrantRequest`, `processRefreshTokenResponse`); `invalid_grant` is permanent.
 */
export async function refreshOAuthRecord(
  record: CredentialRecord,
  now: () => number,
): Promise<CredentialRecord> {
  const metadata = record.metadata ?? {};
  const endpoint = String(metadata.token_endpoint);
  const as: oauth.AuthorizationServer = { issuer: new URL(endpoint).origin, token_endpoint: endpoint };
  const client: oauth.Client = { client_id: String(metadata.client_id) };
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(endpoint).hostname);
  let tokens: oauth.TokenEndpointResponse;
  try {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(typeof metadata.client_secret === 'string' ? metadata.client_secret : ''),
      record.refresh_token!,
      loopback ? { [oauth.allowInsecureRequests]: true } : {},
    );
    tokens = await oauth.processRefreshTokenResponse(as, client, response);
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) {
      const permanent = error.error === 'invalid_grant';
      throw new RefreshGrantError(error.error, {
        permanent,
        ...(permanent
          ? { explanation: 'revoked, expired, or the app is in testing and its tokens lapsed after 7 days' }
          : {}),
        cause: error,
      });
    }
    if (error instanceof Error && error.cause instanceof Response)
      throw new RefreshGrantError(`HTTP ${error.cause.status} from the token endpoint`, { cause: error });
    throw error;
  }
  return {
    ...record,
    token: tokens.access_token,
    refresh_token: tokens.refresh_token ?? record.refresh_token,
    metadata: {
      ...metadata,
      ...(tokens.expires_in ? { expires_at: new Date(now() + tokens.expires_in * 1000).toISOString() } : {}),
    },
  };
}
