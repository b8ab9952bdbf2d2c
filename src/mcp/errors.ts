import { CredentialError, PermissionError, RateLimitError, ToolkitError, UpstreamError } from '../errors.ts';
import type { McpConnection } from './connection.ts';
import { sdkFailure } from './sdk-errors.ts';

/** What the caller knows about a failed request, to say whether it may be sent again. */
export interface FailureContext {
  connection: McpConnection;
  /** Names the request in messages: `listing tools` or `calling add`. */
  action: string;
  /** True for calls the tool's annotations mark read-only or idempotent, and for listing. */
  retrySafe: boolean;
  credentialKey?: string;
}

/**
 * Turns an error of the MCP SDK into one of ours: 401 → {@link CredentialError}, 403 →
 * {@link PermissionError}, 429 → {@link RateLimitError}, an error the server answered with →
 * non-retryable {@link UpstreamError}, and a request whose answer never came (the process died, the
 * connection dropped, a timeout) → retryable only when `retrySafe`: a call that is neither
 * read-only nor idempotent may already have had its effect, so it is reported, never repeated.
 */
export function toMcpFailure(error: unknown, context: FailureContext): Error {
  const server = context.connection.server;
  const where = `MCP server "${server}"`;
  const detail = error instanceof Error ? error.message : String(error);
  if (error instanceof ToolkitError) return error;
  const failure = sdkFailure(error);
  if (failure.kind === 'http') {
    const status = failure.status;
    if (status === 401) {
      const key = context.credentialKey;
      // `rejected`: a 401 proves the request did nothing, so an OAuth token is refreshed and it is repeated once.
      return new CredentialError(
        key
          ? `The ${where} refused the credential "${key}" (401 Unauthorized) while ${context.action}. ` +
              `Store a valid token under "${key}" in the credential store.`
          : `The ${where} requires authorization (401 Unauthorized) while ${context.action}. ` +
              'Give the server entry a `credentialKey` naming a bearer token in the credential store.',
        { rejected: Boolean(key) },
      );
    }
    if (status === 403) {
      return new PermissionError(`The ${where} refused ${context.action} (403 Forbidden): ${detail}`);
    }
    if (status === 429) return new RateLimitError(`The ${where} rate-limited ${context.action}: ${detail}`);
    if (status === 404 || status === 400) {
      // The server no longer knows the session (it restarted): the request was refused, not run.
      void context.connection.reset();
      return new UpstreamError(
        `The ${where} refused ${context.action} (HTTP ${status}); reconnecting: ${detail}`,
        {
          status,
          retryable: true,
        },
      );
    }
  }
  if (isRefused(error)) {
    void context.connection.reset();
    return new UpstreamError(`Could not reach the ${where} while ${context.action}: ${detail}`, {
      retryable: true,
    });
  }
  if (failure.kind === 'answered') {
    if (failure.code === METHOD_NOT_FOUND || failure.code === INVALID_PARAMS) {
      context.connection.invalidateTools();
    }
    return new UpstreamError(`The ${where} answered ${context.action} with an error: ${detail}`);
  }
  const stderr = context.connection.stderrTail;
  const why = `${detail}${stderr ? `\nServer stderr:\n${stderr}` : ''}`;
  if (context.retrySafe) {
    return new UpstreamError(
      `The answer of the ${where} to ${context.action} was lost; trying again: ${why}`,
      {
        retryable: true,
      },
    );
  }
  return new UpstreamError(
    `The ${where} may have run ${context.action}, but its answer was lost (${why}). It is not repeated ` +
      'because the tool is neither read-only nor idempotent (its MCP annotations); check its effect before calling it again.',
  );
}

const METHOD_NOT_FOUND = -32601;
const INVALID_PARAMS = -32602;

/** A connection that was refused before any request could reach the server. */
function isRefused(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ENOENT' || code === 'EACCES')
      return true;
  }
  return false;
}
