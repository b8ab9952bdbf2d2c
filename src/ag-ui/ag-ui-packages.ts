import type * as Core from '@ag-ui/core';
import type * as Schemas from '@ag-ui/core/schemas';
import type * as Encoder from '@ag-ui/encoder';
import { requireOptional } from '../optional-dependency.ts';

/**
 * The AG-UI protocol's own packages, optional peer dependencies: `@ag-ui/core` (event types and the
 * `RunAgentInput` schema) and `@ag-ui/encoder` (the SSE encoder), loaded on first use with a clear
 * error naming the package to install.
 */
export function agUiPackages(feature: string): {
  core: typeof Core;
  schemas: typeof Schemas;
  encoder: typeof Encoder;
} {
  return {
    core: requireOptional<typeof Core>('@ag-ui/core', feature),
    schemas: requireOptional<typeof Schemas>('@ag-ui/core/schemas', feature),
    encoder: requireOptional<typeof Encoder>('@ag-ui/encoder', feature),
  };
}
