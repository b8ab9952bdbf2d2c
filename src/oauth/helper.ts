import * as oauth from 'oauth4webapi';
import type { CredentialRecord, CredentialStore } from '../credentials/types.ts';
import { ConfigurationError, CredentialError } from '../errors.ts';
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
  /**
   * Told after {@link OAuthHelper.exchangeCode} stored the tokens, once per key: an `AgentClient`
   * (or `Agent`) here wakes every run and chat turn of that tenant waiting on the key.
   */
  client?: AuthorizationListener;
}

/** Whatever wakes the runs waiting for a grant: `AgentClient` and `Agent` are. */
export interface AuthorizationListener {
  authorizationCompleted(tenant: string | undefined, credentialKey: string): Promise<unknown>;
}

/** A URL for one run's missing grant: the state remembers the tenant, the key and the run. */
export interface AuthorizationUrlRequest {
  /** Store the tokens for this tenant (`undefined`: the shared records), whatever the helper's own. */
  tenant?: string;
  credentialKey?: string;
  workflowId?: string;
  /** Ask for these scopes instead of the helper's (an under-scoped token: the missing ones and those granted). */
  scopes?: string[];
  /** Keep the state valid this long (a run may wait for hours). Default: the helper's `stateTtlMs`. */
  ttlMs?: number;
}

/** What {@link OAuthHelper.exchangeCode} stored: for which tenant, under which keys. */
export interface StoredGrant {
  tenant: string | undefined;
  keys: string[];
  scopes: string[];
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
 * The authorization-code flow shared by the helpers (docs/credentials-and-oauth.md): a random, single-use state bound to
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
  readonly #listener: AuthorizationListener | undefined;
  protected readonly now: () => number;

  /** A name that binds a state to the kind of helper that made it. */
  protected abstract readonly kind: string;
  /** The credential keys the tokens are stored under. */
  protected abstract readonly keys: readonly string[];
  protected abstract readonly usesPkce: boolean;

  constructor(options: OAuthHelperOptions, defaults: OAuthEndpoints) {
    if (!options?.config?.client_id || !options.config.redirect_uri) {
      throw new ConfigurationError(
        'An OAuth helper needs config.client_id and config.redirect_uri: give the client id of the app ' +
          "registered with the provider and the redirect URL registered with it (e.g. 'http://127.0.0.1:8976/callback').",
      );
    }
    this.config = options.config;
    this.endpoints = options.endpoints ?? defaults;
    this.#store = options.credentialStore;
    this.#states = options.stateStore;
    this.#tenant = options.tenant;
    this.#ttl = options.stateTtlMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
    this.#listener = options.client;
  }

  /** The credential keys this helper stores its tokens under. */
  get credentialKeys(): readonly string[] {
    return this.keys;
  }

  /** The scopes this helper asks for when told nothing else. */
  get defaultScopes(): string[] {
    return this.scopes();
  }

  /** Where the service sends the user back. */
  get redirectUri(): string {
    return this.config.redirect_uri;
  }

  /** The scopes to ask for. */
  protected abstract scopes(): string[];
  /**
   * Service-specific query parameters of the authorization URL; `scopes`, when given, replace the
   * helper's own (an incremental request).
   */
  protected abstract extraAuthorizationParams(scopes?: string[]): Record<string, string>;
  /** Trades the code for tokens at the token endpoint. */
  protected abstract exchange(
    code: string,
    verifier: string | undefined,
    callback: URLSearchParams,
  ): Promise<GrantedTokens>;

  /**
   * The URL to send the user to. Its state is remembered for {@link exchangeCode}; a run's request
   * binds it to the run's tenant, key and workflow, and may name the scopes to ask for.
   */
  async buildAuthorizationUrl(request: AuthorizationUrlRequest = {}): Promise<string> {
    const state = oauth.generateRandomState();
    const verifier = this.usesPkce ? oauth.generateRandomCodeVerifier() : undefined;
    const bound = request.credentialKey !== undefined || request.workflowId !== undefined;
    await this.#states.put(state, {
      ...(verifier ? { verifier } : {}),
      redirect_uri: this.config.redirect_uri,
      helper: this.kind,
      expires_at: this.now() + (request.ttlMs ?? this.#ttl),
      ...(bound ? { tenant: request.tenant ?? null } : {}),
      ...(request.credentialKey !== undefined ? { credential_key: request.credentialKey } : {}),
      ...(request.workflowId !== undefined ? { workflow_id: request.workflowId } : {}),
    });
    const url = new URL(this.endpoints.authorization_endpoint);
    url.searchParams.set('client_id', this.config.client_id);
    url.searchParams.set('redirect_uri', this.config.redirect_uri);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('state', state);
    for (const [name, value] of Object.entries(this.extraAuthorizationParams(request.scopes)))
      url.searchParams.set(name, value);
    if (verifier) {
      url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
      url.searchParams.set('code_challenge_method', 'S256');
    }
    return url.toString();
  }

  /**
   * After the callback: checks the state (known, unused, unexpired, made by this helper for this
   * redirect URI), exchanges the code, and stores the tokens under each key this helper serves —
   * for the tenant the state was bound to by a run, else the helper's. With a `client`, then wakes
   * the runs waiting on each key (a failure to wake is a warning: they find the token within a minute).
   */
  async exchangeCode(
    code: string,
    state: string,
    callback: URLSearchParams = new URLSearchParams({ code, state }),
  ): Promise<StoredGrant> {
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
    const tenant = entry.tenant === undefined ? this.#tenant : (entry.tenant ?? undefined);
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
      await this.#store.put(record, { tenant });
    }
    if (this.#listener) {
      for (const key of this.keys) {
        await this.#listener.authorizationCompleted(tenant, key).catch((error: unknown) => {
          process.emitWarning(
            `The tokens of "${key}" were stored, but waking the runs waiting for them failed ` +
              `(${error instanceof Error ? error.message : String(error)}); they find them within a minute.`,
            { code: 'TOOLKIT_AGENT_AUTHORIZATION_WAKE' },
          );
        });
      }
    }
    return { tenant, keys: [...this.keys], scopes: granted.scopes };
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
