import { ConfigurationError } from '../errors.ts';
import type { CachingOption } from './options.ts';

/** An agent's `caching`, checked (`'auto'` when it has none); a wrong value fails when the worker starts. */
export function checkCaching(agent: string, caching: CachingOption | undefined): CachingOption {
  if (caching === undefined || caching === 'auto' || caching === false) return caching ?? 'auto';
  const ttl = typeof caching === 'object' && caching !== null ? caching.ttl : undefined;
  if (typeof caching === 'object' && caching !== null && [undefined, 'auto', '5m', '1h'].includes(ttl))
    return caching;
  throw new ConfigurationError(
    `Agent "${agent}": caching must be 'auto', false or { ttl: 'auto' | '5m' | '1h' } (got ${JSON.stringify(caching)}).`,
  );
}
