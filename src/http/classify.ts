import {
  CredentialError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  UpstreamError,
  type ToolkitError,
} from '../errors.ts';
import { capText } from '../common/text.ts';
import { insufficientScopeOf } from './insufficient-scope.ts';
import { parseRetryAfter } from './retry-after.ts';
import type { HttpResponse } from './request.ts';

const BODY_IN_ERROR_CHARS = 1_000;

/**
 * The error for a non-2xx answer: 401 credential, 403 permission, 404/410 not
 * found, 429 rate limit (retried after Retry-After), 503 retryable, 408 and other 5xx retryable only
 * when the request is idempotent (a write may have happened), other 4xx not retryable. The message
 * names the service, the status, the request (without its query) and a capped body.
 */
export function errorForResponse(
  response: HttpResponse,
  request: {
    method: string;
    service: string;
    idempotent: boolean;
    credentialKey?: string;
    /** The service's own words for what went wrong, read from its error body; default: the body, capped. */
    detail?: string;
  },
): ToolkitError {
  const { status } = response;
  const url = new URL(response.url);
  const where = `${request.method} ${url.origin}${url.pathname}`;
  const body = request.detail ?? capText(response.text().trim(), BODY_IN_ERROR_CHARS).text;
  const detail = `${request.service} answered ${status}${response.statusText ? ` ${response.statusText}` : ''} for ${where}${body ? `: ${body}` : ''}`;
  const retryAfterMs = parseRetryAfter(response.headers);
  if (status === 401) {
    const key = request.credentialKey ? ` "${request.credentialKey}"` : '';
    return new CredentialError(
      `${detail}\nThe credential${key} was rejected: store a valid token and try again.`,
      { rejected: true },
    );
  }
  if (status === 403) {
    const scopes = insufficientScopeOf(response.headers);
    if (scopes && request.credentialKey) {
      return new PermissionError(
        `${detail}\nThe credential lacks a scope this call needs: authorize again with it.`,
        {
          authorization: {
            credentialKey: request.credentialKey,
            reason: 'insufficient_scope',
            ...(scopes.length ? { scopes } : {}),
          },
        },
      );
    }
    return new PermissionError(`${detail}\nThe credential lacks the permission this call needs.`);
  }
  if (status === 404 || status === 410) return new NotFoundError(detail);
  if (status === 429) return new RateLimitError(detail, { retryAfterMs });
  const retryable = status === 503 || ((status === 408 || status >= 500) && request.idempotent);
  return new UpstreamError(detail, { status, retryable, retryAfterMs });
}
