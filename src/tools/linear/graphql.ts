import type { CredentialRecord } from '../../credentials/types.ts';
import { CredentialError, RateLimitError, UpstreamError } from '../../errors.ts';
import { errorForResponse } from '../../http/classify.ts';
import { httpRequest } from '../../http/request.ts';
import { parseRetryAfter } from '../../http/retry-after.ts';
import type { ToolContext } from '../connector-base.ts';

interface GraphQLResponse<T> {
  data?: T;
  errors?: Array<{
    message: string;
    extensions?: { type?: string; code?: string; userPresentableMessage?: string };
  }>;
}

/** One Linear GraphQL request with the record's key or token; Linear's errors become clear errors. */
export async function graphql<T>(
  record: CredentialRecord,
  context: ToolContext,
  query: string,
  variables: Record<string, unknown>,
): Promise<T> {
  const base =
    typeof record.metadata?.base_url === 'string' ? record.metadata.base_url : 'https://api.linear.app';
  const authorization = record.type === 'api_key' ? record.token : `Bearer ${record.token}`;
  const response = await httpRequest({
    method: 'POST',
    url: new URL('/graphql', base),
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
    idempotent: true, // reads, and creates with a client-chosen id
    secrets: context.secrets,
    signal: context.signal,
  });
  let body: GraphQLResponse<T> | undefined;
  try {
    body = response.json() as GraphQLResponse<T>;
  } catch {
    // not JSON: classified below by status
  }
  const first = body?.errors?.[0];
  if (first) {
    const type = `${first.extensions?.type ?? ''} ${first.extensions?.code ?? ''}`.toLowerCase();
    const message = `Linear: ${first.extensions?.userPresentableMessage ?? first.message}`;
    if (type.includes('authentication'))
      throw new CredentialError(`${message} (check the issue_tracker API key).`);
    if (type.includes('ratelimited') || response.status === 429) {
      throw new RateLimitError(message, { retryAfterMs: parseRetryAfter(response.headers) ?? 60_000 });
    }
    throw new UpstreamError(message, { status: response.status, retryable: response.status >= 500 });
  }
  if (response.status !== 200 || !body?.data) {
    throw errorForResponse(response, {
      method: 'POST',
      service: 'Linear',
      idempotent: true,
      credentialKey: 'issue_tracker',
    });
  }
  return body.data;
}
