import type { IncomingMessage } from 'node:http';

/** Who sent a request, as `authorize` says: the tenant its runs belong to (scopes credential lookups). */
export interface A2aCaller {
  tenant?: string;
}

/** JSON-RPC over HTTP on `host:port`: each agent at `/<agent>`, its card at `/<agent>/.well-known/agent-card.json`. */
export interface A2aHttpTransport {
  /** 0 picks a free port (read it from `url`). */
  port: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Every JSON-RPC request must carry `Authorization: Bearer <bearerToken>`; others get 401. */
  bearerToken?: string;
  /**
   * Instead of `bearerToken`: decides who a request comes from (undefined: 401). Its `tenant`
   * scopes the credential lookups of the runs the request starts.
   */
  authorize?: (request: IncomingMessage) => A2aCaller | undefined | Promise<A2aCaller | undefined>;
  /** The base URL clients reach this server at (behind a proxy), for the agent cards. Default: `http://host:port`. */
  publicUrl?: string;
}

/** A remote agent served over A2A, as a sub-agent (`subAgents: { name: { a2a: { url } } }`). */
export interface RemoteA2aAgent {
  /** The agent's base URL: its card is at `.well-known/agent-card.json` below it. */
  url: string;
  /**
   * A record in the agent's credential store (per tenant) whose token is sent as
   * `Authorization: Bearer <token>`. Read inside the tool's activity only.
   */
  credentialKey?: string;
  /** How often a running remote task is looked at. Default 1 s. */
  pollIntervalMs?: number;
}
