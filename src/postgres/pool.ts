/**
 * What the PostgreSQL stores use of a connection pool: the shape of node-postgres's `pg.Pool`
 * (https://node-postgres.com/apis/pool), so a `pg.Pool` you already have can be passed as it is, and
 * the published types do not need `pg`'s own (`pg` is an optional peer dependency).
 */
export interface PostgresPool {
  query<R extends PostgresRow = PostgresRow>(text: string, values?: unknown[]): Promise<PostgresResult<R>>;
  connect(): Promise<PostgresPoolClient>;
  end(): Promise<void>;
}

/** One pooled connection (`pg.PoolClient`): give it back with `release()`. */
export interface PostgresPoolClient {
  query<R extends PostgresRow = PostgresRow>(text: string, values?: unknown[]): Promise<PostgresResult<R>>;
  release(error?: Error | boolean): void;
}

// Rows are what the database returned: the stores check each column they read.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type PostgresRow = Record<string, any>;

export interface PostgresResult<R> {
  rows: R[];
  rowCount: number | null;
}
