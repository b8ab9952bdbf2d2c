import * as oauth from 'oauth4webapi';
import { CredentialError } from '../errors.ts';
import type { OAuthEndpoints } from './config.ts';
import { OAuthHelper, type GrantedTokens, type OAuthHelperOptions } from './helper.ts';

const GOOGLE: OAuthEndpoints = {
  authorization_endpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
  token_endpoint: 'https://oauth2.googleapis.com/token',
  issuer: 'https://accounts.google.com',
};

const SCOPE = 'https://www.googleapis.com/auth/';

/** The Google scopes each connector needs (CONNECTORS.md), and nothing more. */
export const DRIVE_SUITE_SCOPES = {
  mail: [`${SCOPE}gmail.readonly`, `${SCOPE}gmail.send`, `${SCOPE}gmail.compose`],
  file_drive: [`${SCOPE}drive.readonly`],
  calendar: [`${SCOPE}calendar.readonly`, `${SCOPE}calendar.events`],
} as const;

export type DriveSuiteService = keyof typeof DRIVE_SUITE_SCOPES;

/**
 * OAuth for the Google suite connectors (`mail`, `file_drive`, `calendar`) with PKCE (S256) and
 * offline access, so a refresh token comes back. The tokens are stored under each served key.
 *
 * @example
 * const helper = new DriveSuiteOAuthHelper({ config, credentialStore, stateStore: new InMemoryOAuthStateStore() });
 * const url = await helper.buildAuthorizationUrl();   // send the user here
 * await helper.exchangeCode(code, state);              // in the callback
 */
export class DriveSuiteOAuthHelper extends OAuthHelper {
  protected readonly kind = 'drive_suite';
  protected readonly usesPkce = true;
  protected readonly keys: readonly DriveSuiteService[];

  constructor(options: OAuthHelperOptions & { services?: readonly DriveSuiteService[] }) {
    super(options, GOOGLE);
    this.keys = options.services ?? ['mail', 'file_drive', 'calendar'];
  }

  protected scopes(): string[] {
    if (this.config.scopes.length) return this.config.scopes;
    return [...new Set(this.keys.flatMap((service) => DRIVE_SUITE_SCOPES[service]))];
  }

  protected extraAuthorizationParams(scopes?: string[]): Record<string, string> {
    return {
      scope: (scopes ?? this.scopes()).join(' '),
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
    };
  }

  protected async exchange(
    code: string,
    verifier: string | undefined,
    callback: URLSearchParams,
  ): Promise<GrantedTokens> {
    const as = this.authorizationServer();
    const client: oauth.Client = { client_id: this.config.client_id };
    const params = new URLSearchParams(callback);
    if (!params.has('code')) params.set('code', code);
    try {
      const checked = oauth.validateAuthResponse(as, client, params, oauth.skipStateCheck);
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretPost(this.config.client_secret),
        checked,
        this.config.redirect_uri,
        verifier!,
        this.requestOptions(),
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, response, {
        requireIdToken: false,
      });
      return {
        access_token: tokens.access_token,
        ...(tokens.refresh_token ? { refresh_token: tokens.refresh_token } : {}),
        ...(tokens.expires_in ? { expires_in: tokens.expires_in } : {}),
        scopes: tokens.scope ? tokens.scope.split(' ') : this.scopes(),
      };
    } catch (error) {
      throw new CredentialError(`The token endpoint refused the authorization code: ${describe(error)}`, {
        cause: error,
      });
    }
  }
}

/** oauth4webapi's errors, with the server's own error code and description when it sent them. */
export function describe(error: unknown): string {
  if (error instanceof oauth.ResponseBodyError)
    return `${error.error}${error.error_description ? ` (${error.error_description})` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
