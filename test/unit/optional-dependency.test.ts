import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresMemoryStore } from '../../src/index.ts';
import { importOptional, MissingDependencyError, requireOptional } from '../../src/optional-dependency.ts';
import type { PostgresPool } from '../../src/postgres/pool.ts';

describe('optional dependencies', () => {
  it('names the package to install and the feature that needs it', async () => {
    const error = await importOptional('toolkit-agent-absent-package', 'The example feature').catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(MissingDependencyError);
    expect((error as MissingDependencyError).packageName).toBe('toolkit-agent-absent-package');
    expect((error as Error).message).toBe(
      'The example feature needs the package "toolkit-agent-absent-package", which is not installed. ' +
        'Install it next to toolkit-agent: npm install toolkit-agent-absent-package',
    );
    expect(() => requireOptional('toolkit-agent-absent-package', 'The example feature')).toThrow(
      MissingDependencyError,
    );
  });

  it('gives the declared version range of a peer dependency', async () => {
    const error = (await importOptional('playwright-core/no-such-entry', 'x').catch(
      (e: unknown) => e,
    )) as Error;
    // An installed package whose entry is missing is not "not installed": the original error stays.
    expect(error).not.toBeInstanceOf(MissingDependencyError);
    expect(new MissingDependencyError('pg', 'PostgresMemoryStore', undefined).message).toMatch(
      /npm install pg@\^8\.\d+\.\d+$/,
    );
  });

  it('loads an installed optional package', async () => {
    const loaded = await importOptional<{ default: typeof pg }>('pg', 'PostgresMemoryStore');
    expect(typeof loaded.default.Pool).toBe('function');
  });

  it('takes a pg.Pool as the stores pool', async () => {
    const pool: PostgresPool = new pg.Pool({ connectionString: 'postgres://127.0.0.1:1/none' });
    const store = new PostgresMemoryStore({ pool });
    await store.close(); // a pool given in the options is the caller's to end
    await pool.end();
  });
});
