import { APICallError } from '@ai-sdk/provider';
import { capText } from '../common/text.ts';
import { parsePromptTooLong } from '../context/overflow.ts';
import { ContextOverflowError, ModelError, RateLimitError } from '../errors.ts';
import { parseRetryAfter } from '../http/retry-after.ts';

const RETRYABLE_STATUS = new Set([408, 409, 429]);

/**
 * A provider error: 408, 409, 429 and 5xx (and network failures) are
 * retried, after `retry-after-ms` / `Retry-After` when given; `x-should-retry` overrides; other 4xx
 * fail the run with the provider's message. Errors that are not API errors pass through.
 */
export function classifyModelError(error: unknown, model: string): unknown {
  if (!APICallError.isInstance(error)) return error;
  const headers = lowerCaseKeys(error.responseHeaders ?? {});
  const status = error.statusCode;
  let retryable = status === undefined || RETRYABLE_STATUS.has(status) || status >= 500;
  const override = headers['x-should-retry'];
  if (override === 'true') retryable = true;
  if (override === 'false') retryable = false;
  const body = error.responseBody ? `: ${capText(error.responseBody.trim(), 1000).text}` : '';
  const message = `The model ${model} answered ${status ?? 'no response'}${body || `: ${error.message}`}`;
  const retryAfterMs = parseRetryAfter(headers);
  const tooLong =
    status === 400 || status === 413 ? parsePromptTooLong(error.responseBody ?? error.message) : undefined;
  if (tooLong) return new ContextOverflowError(message, { status, ...tooLong });
  if (status === 429 && retryable) return new RateLimitError(message, { retryAfterMs });
  const advice = retryable ? '' : ' This is not retried: fix the request or the model settings.';
  return new ModelError(`${message}${advice}`, { status, retryable, retryAfterMs });
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}
