import type { WriteAttempt } from '../memory/types.ts';
import type { PostgresPoolClient } from '../postgres/pool.ts';
import { PostgresTable, type PostgresConnectionOptions } from '../postgres/table.ts';
import {
  CACHE_WRITE_COLUMNS,
  ENTRY_COLUMNS,
  entryFromRow,
  entryValues,
  groupSql,
  sumsFromRows,
  SUMS_SELECT,
  whereOf,
} from './columns.ts';
import { MINUTE_MS, startOfUtcDay } from './ledger-keys.ts';
import type {
  AdmissionCounts,
  AdmissionRequest,
  AdmissionScopes,
  UsageEntry,
  UsageFilter,
  UsageGroupBy,
  UsageStore,
  UsageSums,
} from './types.ts';

/** `table` default: `toolkit_usage` (its slots live in `<table>_slots`). */
export type PostgresUsageStoreOptions = PostgresConnectionOptions;

const COLUMNS = ENTRY_COLUMNS.join(', ');

/**
 * A usage ledger in PostgreSQL, shared by workers on several machines: quotas hold across the whole
 * fleet. Admission takes a transaction-scoped advisory lock per tenant, so two workers never both
 * take a tenant's last slot; lines are upserted by key, so retries never count twice.
 */
export class PostgresUsageStore implements UsageStore {
  readonly #db: PostgresTable;
  readonly #table: string;
  readonly #slots: string;

  constructor(options: PostgresUsageStoreOptions) {
    const table = options.table ?? 'toolkit_usage';
    this.#db = new PostgresTable('PostgresUsageStore', options, {
      table,
      max: 5,
      columns:
        'key text PRIMARY KEY, at bigint NOT NULL, tenant text NOT NULL, agent text NOT NULL, ' +
        'model text NOT NULL, workflow_id text NOT NULL, input_tokens bigint NOT NULL, ' +
        'output_tokens bigint NOT NULL, cached_input_tokens bigint NOT NULL, reasoning_tokens bigint NOT NULL, ' +
        'total_tokens bigint NOT NULL, runs integer NOT NULL, sub_runs integer NOT NULL, wall_ms bigint NOT NULL, ' +
        'tool_calls jsonb NOT NULL, writer text, attempt integer',
      migrations: [
        'CREATE INDEX IF NOT EXISTS {table}_tenant_at ON {table} (tenant, at)',
        'CREATE TABLE IF NOT EXISTS {table}_slots (workflow_id text PRIMARY KEY, tenant text NOT NULL, agent text NOT NULL, taken_at bigint NOT NULL)',
        // Cache writes are counted since prompt caching (ledgers made before have no such columns).
        ...CACHE_WRITE_COLUMNS.map(
          (column) => `ALTER TABLE {table} ADD COLUMN IF NOT EXISTS ${column} bigint NOT NULL DEFAULT 0`,
        ),
      ],
    });
    this.#table = this.#db.name;
    this.#slots = `${this.#db.name}_slots`;
  }

  async record(entry: UsageEntry, attempt?: WriteAttempt): Promise<void> {
    await this.#db.ready();
    await this.#upsert(this.#db.pool, entry, attempt);
  }

  async #upsert(
    db: Pick<PostgresPoolClient, 'query'>,
    entry: UsageEntry,
    attempt: WriteAttempt | undefined,
  ): Promise<void> {
    const table = this.#table;
    const placeholders = ENTRY_COLUMNS.map((c, i) => (c === 'tool_calls' ? `$${i + 1}::jsonb` : `$${i + 1}`));
    const updates = ENTRY_COLUMNS.filter((c) => c !== 'key').map((c) => `${c} = EXCLUDED.${c}`);
    const n = ENTRY_COLUMNS.length;
    // A line is replaced unless a later attempt of the same writer stored it (see WriteAttempt).
    await db.query(
      `INSERT INTO ${table} (${COLUMNS}, writer, attempt) VALUES (${placeholders.join(', ')}, $${n + 1}, $${n + 2}::integer)
       ON CONFLICT (key) DO UPDATE SET ${updates.join(', ')}, writer = EXCLUDED.writer, attempt = EXCLUDED.attempt
         WHERE EXCLUDED.writer IS NULL OR ${table}.writer IS NULL
            OR ${table}.writer <> EXCLUDED.writer OR ${table}.attempt <= EXCLUDED.attempt`,
      [...entryValues(entry), attempt?.writer ?? null, attempt?.attempt ?? null],
    );
  }

  async entries(filter: UsageFilter = {}): Promise<UsageEntry[]> {
    await this.#db.ready();
    const { where, values } = whereOf(filter, (n) => `$${n}`);
    const result = await this.#db.pool.query(
      `SELECT ${COLUMNS} FROM ${this.#table} ${where} ORDER BY at, key`,
      values,
    );
    return result.rows.map(entryFromRow);
  }

  async sums(filter: UsageFilter, groupBy?: UsageGroupBy): Promise<UsageSums[]> {
    await this.#db.ready();
    const { where, values } = whereOf(filter, (n) => `$${n}`);
    const group = groupSql(groupBy, 'postgres');
    const table = this.#table;
    const [rows, tools] = await Promise.all([
      this.#db.pool.query(
        `SELECT ${group} AS grp, model, ${SUMS_SELECT} FROM ${table} ${where} GROUP BY 1, 2`,
        values,
      ),
      this.#db.pool.query(
        `SELECT ${group} AS grp, j.key AS tool, SUM(j.value::bigint) AS calls
         FROM ${table} CROSS JOIN LATERAL jsonb_each_text(${table}.tool_calls) AS j ${where} GROUP BY 1, 2`,
        values,
      ),
    ]);
    return sumsFromRows(rows.rows, tools.rows);
  }

  async admit<R>(
    request: AdmissionRequest,
    decide: (counts: AdmissionScopes) => R | undefined,
  ): Promise<R | undefined> {
    await this.#db.ready();
    const client = await this.#db.pool.connect();
    try {
      await client.query('BEGIN');
      // One admission per tenant at a time, across every worker that shares the database.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.#table}:${request.tenant}`]);
      const refused = await this.#admit(client, request, decide);
      await client.query(refused === undefined ? 'COMMIT' : 'ROLLBACK');
      return refused;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async #admit<R>(
    client: PostgresPoolClient,
    request: AdmissionRequest,
    decide: (counts: AdmissionScopes) => R | undefined,
  ): Promise<R | undefined> {
    const { tenant, agent, workflowId, now } = request;
    const known = await client.query(
      `SELECT 1 FROM ${this.#slots} WHERE workflow_id = $1 UNION ALL SELECT 1 FROM ${this.#table} WHERE key = $2`,
      [workflowId, request.start.key],
    );
    if (known.rows.length === 0) {
      const refused = decide({
        tenant: await this.#counts(client, tenant, undefined, now),
        agent: await this.#counts(client, tenant, agent, now),
      });
      if (refused !== undefined) return refused;
      await this.#upsert(client, request.start, undefined);
    }
    await client.query(
      `INSERT INTO ${this.#slots} (workflow_id, tenant, agent, taken_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [workflowId, tenant, agent, now],
    );
    return undefined;
  }

  /** The tenant's counts (of `agent`'s runs only, when given). */
  async #counts(
    client: PostgresPoolClient,
    tenant: string,
    agent: string | undefined,
    now: number,
  ): Promise<AdmissionCounts> {
    const scope = agent === undefined ? 'tenant = $1' : 'tenant = $1 AND agent = $2';
    const who = agent === undefined ? [tenant] : [tenant, agent];
    const next = who.length + 1;
    const running = await client.query<{ workflow_id: string }>(
      `SELECT workflow_id FROM ${this.#slots} WHERE ${scope}`,
      who,
    );
    const starts = await client.query<{ at: string }>(
      `SELECT at FROM ${this.#table} WHERE ${scope} AND runs > 0 AND at > $${next} ORDER BY at`,
      [...who, now - MINUTE_MS],
    );
    return {
      running: running.rows.map((row) => row.workflow_id),
      recentStarts: starts.rows.map((row) => Number(row.at)),
      tokensToday: await this.#tokens(client, tenant, startOfUtcDay(now), agent),
    };
  }

  async #tokens(
    db: Pick<PostgresPoolClient, 'query'>,
    tenant: string,
    since: number,
    agent: string | undefined,
  ): Promise<number> {
    const scope = agent === undefined ? 'tenant = $1' : 'tenant = $1 AND agent = $2';
    const who = agent === undefined ? [tenant] : [tenant, agent];
    const result = await db.query<{ n: string }>(
      `SELECT COALESCE(SUM(total_tokens), 0) AS n FROM ${this.#table} WHERE ${scope} AND at >= $${who.length + 1}`,
      [...who, since],
    );
    return Number(result.rows[0]?.n ?? 0);
  }

  async release(workflowId: string): Promise<void> {
    await this.#db.ready();
    await this.#db.pool.query(`DELETE FROM ${this.#slots} WHERE workflow_id = $1`, [workflowId]);
  }

  async tokensSince(tenant: string, since: Date, agent?: string): Promise<number> {
    await this.#db.ready();
    return this.#tokens(this.#db.pool, tenant, since.getTime(), agent);
  }

  async close(): Promise<void> {
    await this.#db.close();
  }
}
