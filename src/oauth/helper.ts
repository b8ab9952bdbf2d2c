import * as oauth from 'oauth4webapi';
import type { CredentialRecord, CredentialStore } from '../credentials/types.ts';
import { CredentialError } from '../errors.ts';
import type { OAuthClientConfig, OAuthEndpoints } from './config.ts';
import type { OAuthStateStore } from './state-store.ts';

export interface OAuthHelperOptions {
  config: OAuthClientConfig;
  credentialStore: CredentialStore;
  stateStore: OAuthStateStore;
  /** Override the service's URLs (tests, proxies, self-hosted editions). */
  endpoints?: OAuthEndpoints;
  /** Store the records for this end user. */
  tenant?: string;
  /** How long a state stays valid. Default 10 minutes. */
  stateTtlMs?: number;
  /** Injected clock (tests). */
  now?: () => number;
}

/** What a helper learned from the token endpoint, before it is stored under each key. */
export interface GrantedTokens {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scopes: string[];
  /** Extra, service-specific metadata for the records. */
  metadata?: Record<string, unknown>;
}

/**
 * The authorization-code flow shared by the helpers (spec 2.3): a random, single-use state bound to
 * its PKCE verifier, redirect URI and helper, expiring after 10 minutes; a refused state stores
 * nothing. Subclasses say which endpoints, scopes and keys they serve and how to exchange the code.
 */
export abstract class OAuthHelper {
  protected readonly config: OAuthClientConfig;
  protected readonly endpoints: OAuthEndpoints;
  readonly #store: CredentialStore;
  readonly #states: OAuthStateStore;
  readonly #tenant: string | undefined;
  readonly #ttl: number;
  protected readonly now: () => number;

  /** A name that binds a state to the kind of helper that made it. */
  protected abstract readonly kind: string;
  /** The credential keys the tokens are stored under. */
  protected abstract readonly keys: readonly string[];
  protected abstract readonly usesPkce: boolean;

  constructor(options: OAuthHelperOptions, defaults: OAuthEndpoints) {
    if (!options?.config?.client_id || !options.config.redirect_uri) {
      throw new TypeError('An OAuth helper needs config.client_id and config.redirect_uri.');
    }
    this.config = options.config;
    this.endpoints = options.endpoints ?? defaults;
    this.#store = options.credentialStore;
    this.#states = options.stateStore;
    this.#tenant = options.tenant;
    this.#ttl = options.stateTtlMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Where the service sends the user back. */
  get redirectUri(): string {
    return this.config.redirect_uri;
  }

  /** The scopes to ask for. */
  protected abstract scopes(): string[];
  /** Service-specific query parameters of the authorization URL. */
  protected abstract extraAuthorizationParams(): Record<string, string>;
  /** Trades the code for tokens at the token endpoint. */
  protected abstract exchange(
    code: string,
    verifier: string | undefined,
    callback: URLSearchParams,
  ): Promise<GrantedTokens>;

  /** The URL to send the user to. Its state is remembered for {@link exchangeCode}. */
  async buildAuthorizationUrl(): Promise<string> {
    const state = oauth.generateRandomState();
    const verifier = this.usesPkce ? oauth.generateRandomCodeVerifier() : undefined;
    await this.#states.put(state, {
      ...(verifier ? { verifier } : {}),
      redirect_uri: this.config.redirect_uri,
      helper: this.kind,
      expires_at: this.now() + this.#ttl,
    });
    const url = new URL(this.endpoints.authorization_endpoint);
    url.searchParams.set('client_id', this.config.client_id);
    url.searchParams.set('redirect_uri', this.config.redirect_uri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('state', state);
    for (const [name, value] of Object.entries(this.extraAuthorizationParams()))
      url.searchParams.set(name, value);
    if (verifier) {
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
    }
    return url.toString();
  }

  /**
   * After the callback: checks the state (known, unused, unexpired, made by this helper for this
   * redirect URI), exchanges the code, and stores the tokens under each key this helper serves.
   */
  async exchangeCode(
    code: string,
    state: string,
    callback: URLSearchParams = new URLSearchParams({ code, state }),
  ): Promise<void> {
    const entry = await this.#states.take(state);
    const refuse = (why: string) =>
      new CredentialError(
        `The OAuth callback was refused: ${why} Nothing was stored; start the authorization again.`,
      );
    if (!entry) throw refuse('its state is unknown or was already used.');
    if (entry.expires_at <= this.now()) throw refuse('its state expired.');
    if (entry.helper !== this.kind) throw refuse(`its state was made by another helper (${entry.helper}).`);
    if (entry.redirect_uri !== this.config.redirect_uri)
      throw refuse('it came back to another redirect URI.');
    const granted = await this.exchange(code, entry.verifier, callback);
    const expiresAt = granted.expires_in
      ? new Date(this.now() + granted.expires_in * 1000).toISOString()
      : undefined;
    for (const name of this.keys) {
      const record: CredentialRecord = {
        name,
        type: 'oauth2',
        token: granted.access_token,
        ...(granted.refresh_token ? { refresh_token: granted.refresh_token } : {}),
        metadata: {
          ...(expiresAt ? { expires_at: expiresAt } : {}),
          client_id: this.config.client_id,
          client_secret: this.config.client_secret,
          scopes: granted.scopes,
          token_endpoint: this.endpoints.token_endpoint,
          ...granted.metadata,
        },
      };
      await this.#store.put(record, { tenant: this.#tenant });
    }
  }

  /** oauth4webapi's view of the server; plain http only on loopback (tests). */
  protected authorizationServer(): oauth.AuthorizationServer {
    return {
      issuer: this.endpoints.issuer ?? new URL(this.endpoints.token_endpoint).origin,
      authorization_endpoint: this.endpoints.authorization_endpoint,
      token_endpoint: this.endpoints.token_endpoint,
    };
  }

  protected requestOptions(): { [oauth.allowInsecureRequests]?: boolean } {
    const host = new URL(this.endpoints.token_endpoint).hostname;
    return ['127.0.0.1', 'localhost', '[::1]'].includes(host) ? { [oauth.allowInsecureRequests]: true } : {};
  }
}
