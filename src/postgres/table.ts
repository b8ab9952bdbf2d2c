import type pg from 'pg';
import { ConfigurationError } from '../errors.ts';
import { importOptional } from '../optional-dependency.ts';
import type { PostgresPool } from './pool.ts';

/** How every PostgreSQL store is given its database. */
export interface PostgresConnectionOptions {
  /** e.g. `postgres://user:password@db.internal:5432/agents`. */
  connectionString?: string;
  /** A pool you already have (a `pg.Pool`); closed by you, not by the store's `close()`. */
  pool?: PostgresPool;
  /** Table name; created on first use. */
  table?: string;
}

/** The pool, table and one-time table creation of a PostgreSQL store. */
export class PostgresTable {
  readonly name: string;
  readonly #store: string;
  readonly #options: PostgresConnectionOptions;
  readonly #max: number;
  #pool: PostgresPool | undefined;
  readonly #ddl: string;
  readonly #migrations: string[];
  #ready: Promise<void> | undefined;

  /**
   * `columns`: the body of `CREATE TABLE` (columns and keys); `migrations`: statements run after it,
   * for tables an earlier version made (`{table}` stands for the table's name).
   */
  constructor(
    store: string,
    options: PostgresConnectionOptions,
    defaults: { table: string; columns: string; max: number; migrations?: string[] },
  ) {
    if (!options?.pool && !options?.connectionString)
      throw new ConfigurationError(`${store} needs a connectionString or a pool.`);
    this.name = options.table ?? defaults.table;
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(this.name))
      throw new ConfigurationError(
        `Invalid table name ${JSON.stringify(this.name)} for ${store}: use a-z, 0-9 and _.`,
      );
    this.#store = store;
    this.#options = options;
    this.#max = defaults.max;
    this.#pool = options.pool;
    this.#ddl = `CREATE TABLE IF NOT EXISTS ${this.name} (${defaults.columns})`;
    this.#migrations = (defaults.migrations ?? []).map((sql) => sql.replaceAll('{table}', this.name));
  }

  /** The pool; `ready()` must have been awaited. */
  get pool(): PostgresPool {
    if (!this.#pool) throw new Error(`${this.#store}: await ready() before using the pool.`);
    return this.#pool;
  }

  /** Opens the pool and creates the table, once per store; call before every statement. */
  ready(): Promise<void> {
    this.#ready ??= this.#openPool()
      .then((pool) => pool.query(this.#ddl))
      .catch((error: unknown) => {
        // Two hosts (or two stores of one process) creating the table at once: the loser sees a
        // duplicate — of the table, its row type (42710) or a catalog key — which is fine.
        if (!['23505', '42P07', '42710'].includes((error as { code?: string }).code ?? '')) throw error;
      })
      .then(async () => {
        for (const sql of this.#migrations) await this.pool.query(sql);
      })
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }

  async #openPool(): Promise<PostgresPool> {
    if (!this.#pool) {
      const { default: postgres } = await importOptional<{ default: typeof pg }>('pg', this.#store);
      this.#pool = new postgres.Pool({ connectionString: this.#options.connectionString, max: this.#max });
    }
    return this.#pool;
  }

  /** Ends the pool this store opened (a pool given in the options is yours to end). */
  async close(): Promise<void> {
    if (!this.#options.pool) await this.#pool?.end();
  }
}
