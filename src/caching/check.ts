import { ConfigurationError } from '../errors.ts';
import type { CachingOption } from './options.ts';

const TTLS: ReadonlyArray<unknown> = [undefined, 'auto', '5m', '1h'];

/**
 * A `caching` option, checked (`'auto'` when there is none): an agent's fails when the worker
 * starts, a run's when it is started. `owner` names whose it is (`Agent "support"`).
 */
export function checkCaching(owner: string, caching: CachingOption | undefined): CachingOption {
  if (caching === undefined) return 'auto';
  if (caching === 'auto' || caching === false) return caching;
  if (typeof caching === 'object' && caching !== null && TTLS.includes(caching.ttl)) return caching;
  throw new ConfigurationError(
    `${owner}: caching must be 'auto', false or { ttl: 'auto' | '5m' | '1h' } (got ${JSON.stringify(caching)}).`,
  );
}
