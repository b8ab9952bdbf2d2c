import type { CredentialRecord } from '../../credentials/types.ts';
import { CredentialError } from '../../errors.ts';
import { errorForResponse } from '../../http/classify.ts';
import { httpRequest } from '../../http/request.ts';
import type { ToolContext } from '../connector-base.ts';

/** Cloud (email + API token, Basic) or self-hosted (personal access token, Bearer), and where. */
export function atlassianSite(
  record: CredentialRecord,
  key: string,
): { base: string; cloud: boolean; authorization: string } {
  const metadata = record.metadata ?? {};
  const domain = typeof metadata.domain === 'string' ? metadata.domain : undefined;
  const configured = typeof metadata.base_url === 'string' ? metadata.base_url : undefined;
  const base = configured ?? (domain ? `https://${domain}.atlassian.net` : undefined);
  if (!base)
    throw new CredentialError(
      `The "${key}" credential needs metadata.domain (your-site of your-site.atlassian.net) or metadata.base_url.`,
    );
  const cloud =
    metadata.edition === 'cloud' ||
    (metadata.edition !== 'server' &&
      (!configured || /\.atlassian\.net$/.test(new URL(base).hostname) || Boolean(metadata.email)));
  if (!cloud) return { base, cloud, authorization: `Bearer ${record.token}` };
  if (typeof metadata.email !== 'string') {
    throw new CredentialError(
      `The "${key}" credential needs metadata.email: Atlassian Cloud authenticates with email and API token.`,
    );
  }
  return {
    base,
    cloud,
    authorization: `Basic ${Buffer.from(`${metadata.email}:${record.token}`).toString('base64')}`,
  };
}

/** One Atlassian REST call; their error bodies (`errorMessages`, `errors`) become the message. */
export async function atlassianRequest(
  site: { base: string; authorization: string },
  context: ToolContext,
  request: {
    method: 'GET' | 'POST';
    path: string;
    query?: Record<string, string | number>;
    body?: unknown;
    service: string;
    key: string;
  },
): Promise<unknown> {
  const url = new URL(request.path, site.base);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, String(value));
  const response = await httpRequest({
    method: request.method,
    url,
    headers: {
      authorization: site.authorization,
      accept: 'application/json',
      ...(request.body ? { 'content-type': 'application/json' } : {}),
    },
    ...(request.body ? { body: JSON.stringify(request.body) } : {}),
    idempotent: request.method === 'GET' || request.path.includes('search'),
    secrets: context.secrets,
    signal: context.signal,
  });
  if (response.status >= 200 && response.status < 300) return response.json();
  throw errorForResponse(response, {
    method: request.method,
    service: request.service,
    idempotent: request.method === 'GET',
    credentialKey: request.key,
    detail: atlassianDetail(response.text()),
  });
}

/** Atlassian error bodies: `{ errorMessages: [], errors: { field: message } }` or `{ message }`. */
function atlassianDetail(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as {
      errorMessages?: string[];
      errors?: Record<string, string>;
      message?: string;
    };
    const parts = [
      ...(body.errorMessages ?? []),
      ...Object.entries(body.errors ?? {}).map(([field, message]) => `${field}: ${message}`),
      ...(body.message ? [body.message] : []),
    ];
    return parts.length ? parts.join('; ') : undefined;
  } catch {
    return undefined;
  }
}

/** The site of a tool's credential and a caller bound to it: what the Jira and Confluence tools share. */
export function atlassianClient(
  record: CredentialRecord,
  key: string,
  context: ToolContext,
  service: string,
) {
  const site = atlassianSite(record, key);
  const call = (
    method: 'GET' | 'POST',
    path: string,
    extra: { query?: Record<string, string | number>; body?: unknown } = {},
  ) => atlassianRequest(site, context, { method, path, ...extra, service, key });
  return { site, call };
}
