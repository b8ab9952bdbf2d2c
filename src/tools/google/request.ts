import type { CredentialRecord } from '../../credentials/types.ts';
import { PermissionError, RateLimitError, UpstreamError } from '../../errors.ts';
import { errorForResponse } from '../../http/classify.ts';
import { insufficientScopeOf } from '../../http/insufficient-scope.ts';
import { httpRequest } from '../../http/request.ts';
import { parseRetryAfter } from '../../http/retry-after.ts';
import type { ToolContext } from '../connector-base.ts';

/** Drive refused to export a Google document because the export would exceed 10 MB. */
export class ExportTooLargeError extends UpstreamError {}

interface GoogleError {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    errors?: Array<{ reason?: string; domain?: string }>;
  };
}

/**
 * Refuses, before any request, an action whose scope the record was not granted (when the record
 * lists its scopes, as records from DriveSuiteOAuthHelper do), naming the scope to authorize.
 */
export function requireScope(record: CredentialRecord, anyOf: string[], action: string): void {
  const granted = record.metadata?.scopes;
  if (!Array.isArray(granted)) return;
  const names = granted.map((scope) => String(scope).replace(/^https:\/\/www\.googleapis\.com\/auth\//, ''));
  if (anyOf.some((scope) => names.includes(scope))) return;
  throw new PermissionError(
    `${action} needs the scope ${anyOf[0]} (https://www.googleapis.com/auth/${anyOf[0]}), which "${record.name}" was not granted. ` +
      'Authorize again with it (DriveSuiteOAuthHelper asks for the scopes each service needs).',
    {
      authorization: {
        credentialKey: record.name,
        reason: 'insufficient_scope',
        scopes: [`https://www.googleapis.com/auth/${anyOf[0]}`],
      },
    },
  );
}

/** One Google API call with the record's OAuth token; Google's error bodies become clear errors. */
export async function googleRequest(
  record: CredentialRecord,
  context: ToolContext,
  request: {
    method: 'GET' | 'POST';
    path: string;
    query?: Record<string, string | number | boolean | string[] | undefined>;
    body?: unknown;
    service: string;
    idempotent?: boolean;
  },
): Promise<{ text: string; readonly json: unknown }> {
  const base =
    typeof record.metadata?.base_url === 'string' ? record.metadata.base_url : 'https://www.googleapis.com';
  const url = new URL(request.path, base);
  for (const [name, value] of Object.entries(request.query ?? {}))
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      url.searchParams.append(name, String(one));
  const response = await httpRequest({
    method: request.method,
    url,
    headers: {
      authorization: `Bearer ${record.token}`,
      accept: 'application/json',
      ...(request.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(request.body ? { body: JSON.stringify(request.body) } : {}),
    idempotent: request.idempotent ?? request.method === 'GET',
    secrets: context.secrets,
    signal: context.signal,
  });
  if (response.status >= 200 && response.status < 300) {
    const text = response.text();
    const isJson = /json/.test(response.headers['content-type'] ?? '') && text !== '';
    // Parsed only when read: a downloaded file is wanted as text, and may not be valid JSON.
    return {
      text,
      get json(): unknown {
        return isJson ? (JSON.parse(text) as unknown) : undefined;
      },
    };
  }
  let body: GoogleError = {};
  try {
    body = response.json() as GoogleError;
  } catch {
    // not JSON
  }
  const reasons = (body.error?.errors ?? []).map((e) => e.reason ?? '');
  const message = `${request.service}: ${body.error?.message ?? `HTTP ${response.status}`}`;
  if (reasons.some((r) => r === 'rateLimitExceeded' || r === 'userRateLimitExceeded')) {
    throw new RateLimitError(message, { retryAfterMs: parseRetryAfter(response.headers) ?? 5_000 });
  }
  if (reasons.includes('exportSizeLimitExceeded')) {
    throw new ExportTooLargeError(`${message}. Drive exports documents of at most 10 MB as text.`, {
      status: response.status,
      retryable: false,
    });
  }
  const wanted = insufficientScopeOf(response.headers);
  if (response.status === 403 && (reasons.includes('insufficientPermissions') || wanted)) {
    throw new PermissionError(
      `${message}. The token lacks a scope this call needs: authorize again with it.`,
      {
        authorization: {
          credentialKey: record.name,
          reason: 'insufficient_scope',
          ...(wanted?.length ? { scopes: wanted } : {}),
        },
      },
    );
  }
  throw errorForResponse(response, {
    method: request.method,
    service: request.service,
    idempotent: request.idempotent ?? request.method === 'GET',
    credentialKey: record.name,
    detail: body.error?.message,
  });
}
