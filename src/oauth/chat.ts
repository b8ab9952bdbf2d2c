import { CredentialError } from '../errors.ts';
import { httpRequest } from '../http/request.ts';
import type { OAuthEndpoints } from './config.ts';
import { OAuthHelper, type GrantedTokens, type OAuthHelperOptions } from './helper.ts';

const SLACK: OAuthEndpoints = {
  authorization_endpoint: 'https://slack.com/oauth/v2/authorize',
  token_endpoint: 'https://slack.com/api/oauth.v2.access',
};

/** Bot scopes to post and resolve channels, when `config.scopes` is empty. */
export const CHAT_BOT_SCOPES = ['chat:write', 'channels:read', 'groups:read'];
/** User scopes for search (a bot token cannot search). */
export const CHAT_USER_SCOPES = ['search:read'];

interface SlackAccessResponse {
  ok: boolean;
  error?: string;
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  bot_user_id?: string;
  team?: { id?: string; name?: string };
  authed_user?: {
    id?: string;
    scope?: string;
    access_token?: string;
    refresh_token?: string;
    expires_in?: number;
  };
}

/**
 * OAuth v2 for the chat connector (Slack): bot scopes and user scopes. Stores the bot token under
 * `chat`, and the user token, when user scopes were granted, as `metadata.user_token` so that
 * search works. With token rotation the refresh token and expiry are stored too.
 */
export class ChatOAuthHelper extends OAuthHelper {
  protected readonly kind = 'chat';
  protected readonly usesPkce = false;
  protected readonly keys = ['chat'] as const;
  readonly #userScopes: string[];

  constructor(options: OAuthHelperOptions & { userScopes?: string[] }) {
    super(options, SLACK);
    this.#userScopes = options.userScopes ?? CHAT_USER_SCOPES;
  }

  protected scopes(): string[] {
    return this.config.scopes.length ? this.config.scopes : CHAT_BOT_SCOPES;
  }

  protected extraAuthorizationParams(scopes?: string[]): Record<string, string> {
    return {
      scope: (scopes ?? this.scopes()).join(','),
      ...(this.#userScopes.length ? { user_scope: this.#userScopes.join(',') } : {}),
    };
  }

  protected async exchange(code: string): Promise<GrantedTokens> {
    const basic = Buffer.from(`${this.config.client_id}:${this.config.client_secret}`).toString('base64');
    const response = await httpRequest({
      method: 'POST',
      url: this.endpoints.token_endpoint,
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code, redirect_uri: this.config.redirect_uri }).toString(),
    });
    let body: SlackAccessResponse;
    try {
      body = response.json() as SlackAccessResponse;
    } catch {
      throw new CredentialError(`oauth.v2.access answered ${response.status} without JSON.`);
    }
    if (!body.ok)
      throw new CredentialError(
        `oauth.v2.access refused the code: ${body.error ?? `HTTP ${response.status}`}.`,
      );
    const user = body.authed_user;
    const token = body.access_token ?? user?.access_token;
    if (!token) throw new CredentialError('oauth.v2.access returned no token.');
    // A user-only install: the record's token is the user token, rotated with the user's refresh token.
    const refreshToken = body.access_token ? body.refresh_token : user?.refresh_token;
    const expiresIn = body.access_token ? body.expires_in : user?.expires_in;
    return {
      access_token: token,
      ...(refreshToken ? { refresh_token: refreshToken } : {}),
      ...(expiresIn ? { expires_in: expiresIn } : {}),
      scopes: (body.scope ?? '').split(',').filter(Boolean),
      metadata: {
        ...(body.bot_user_id ? { bot_user_id: body.bot_user_id } : {}),
        ...(body.team?.id ? { team_id: body.team.id, team_name: body.team.name } : {}),
        ...(user?.access_token && body.access_token
          ? {
              user_token: user.access_token,
              user_id: user.id,
              user_scopes: (user.scope ?? '').split(',').filter(Boolean),
              ...(user.refresh_token ? { user_refresh_token: user.refresh_token } : {}),
            }
          : {}),
      },
    };
  }
}
