/** Prompt caching: the `caching` option of an agent (docs/caching.md). */
export type { CacheTtl, CachingOption, CachingSettings } from './options.ts';
