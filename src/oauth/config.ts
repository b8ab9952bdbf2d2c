/** An OAuth client registered with the service (docs/credentials-and-oauth.md). */
export interface OAuthClientConfig {
  client_id: string;
  client_secret: string;
  redirect_uri: string;
  /** Scopes to ask for; a helper that knows the service fills them in when this is empty. */
  scopes: string[];
}

/** The service's endpoints (RFC 8414 names); tests point them at a local authorization server. */
export interface OAuthEndpoints {
  authorization_endpoint: string;
  token_endpoint: string;
  /** The authorization server's issuer, when it sends one back (RFC 9207). */
  issuer?: string;
}
