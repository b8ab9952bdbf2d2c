import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSharedSqlite } from '../fs/sqlite-file.ts';
import type { WriteAttempt } from '../memory/types.ts';
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

const COLUMNS = ENTRY_COLUMNS.join(', ');
const PLACEHOLDERS = ENTRY_COLUMNS.map(() => '?').join(', ');
const UPDATES = ENTRY_COLUMNS.filter((c) => c !== 'key')
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

/**
 * A usage ledger in one SQLite file (`node:sqlite`), shared by the worker processes of one machine;
 * by default the file of the default memory store. Admission runs in one `BEGIN IMMEDIATE`
 * transaction, so two workers of the machine never both take the last slot.
 */
export class SqliteUsageStore implements UsageStore {
  readonly path: string;
  readonly #db: DatabaseSync;
  readonly #upsert: StatementSync;

  constructor(opts: { path: string }) {
    this.path = opts.path;
    this.#db = openSharedSqlite(opts.path);
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS usage_ledger (
        key TEXT PRIMARY KEY, at INTEGER NOT NULL, tenant TEXT NOT NULL, agent TEXT NOT NULL,
        model TEXT NOT NULL, workflow_id TEXT NOT NULL,
        input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
        cached_input_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
        total_tokens INTEGER NOT NULL, runs INTEGER NOT NULL, sub_runs INTEGER NOT NULL,
        wall_ms INTEGER NOT NULL, tool_calls TEXT NOT NULL, writer TEXT, attempt INTEGER
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS usage_ledger_tenant_at ON usage_ledger (tenant, at);
      CREATE TABLE IF NOT EXISTS usage_slots (
        workflow_id TEXT PRIMARY KEY, tenant TEXT NOT NULL, agent TEXT NOT NULL, taken_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
    const present = new Set(
      (this.#db.prepare('PRAGMA table_info(usage_ledger)').all() as Array<{ name: string }>).map(
        (c) => c.name,
      ),
    );
    // Cache writes are counted since prompt caching (ledgers made before have no such columns).
    for (const column of CACHE_WRITE_COLUMNS)
      if (!present.has(column))
        this.#db.exec(`ALTER TABLE usage_ledger ADD COLUMN ${column} INTEGER NOT NULL DEFAULT 0`);
    // A line is replaced unless a later attempt of the same writer stored it (see WriteAttempt).
    this.#upsert = this.#db.prepare(
      `INSERT INTO usage_ledger (${COLUMNS}, writer, attempt) VALUES (${PLACEHOLDERS}, ?, ?)
       ON CONFLICT (key) DO UPDATE SET ${UPDATES}, writer = excluded.writer, attempt = excluded.attempt
         WHERE excluded.writer IS NULL OR usage_ledger.writer IS NULL
            OR usage_ledger.writer <> excluded.writer OR usage_ledger.attempt <= excluded.attempt`,
    );
  }

  async record(entry: UsageEntry, attempt?: WriteAttempt): Promise<void> {
    this.#upsert.run(...entryValues(entry), attempt?.writer ?? null, attempt?.attempt ?? null);
  }

  async entries(filter: UsageFilter = {}): Promise<UsageEntry[]> {
    const { where, values } = whereOf(filter, () => '?');
    const rows = this.#db
      .prepare(`SELECT ${COLUMNS} FROM usage_ledger ${where} ORDER BY at, key`)
      .all(...values);
    return (rows as Array<Record<string, unknown>>).map(entryFromRow);
  }

  async sums(filter: UsageFilter, groupBy?: UsageGroupBy): Promise<UsageSums[]> {
    const { where, values } = whereOf(filter, () => '?');
    const group = groupSql(groupBy, 'sqlite');
    const rows = this.#db
      .prepare(`SELECT ${group} AS grp, model, ${SUMS_SELECT} FROM usage_ledger ${where} GROUP BY grp, model`)
      .all(...values);
    const tools = this.#db
      .prepare(
        `SELECT ${group} AS grp, j.key AS tool, SUM(j.value) AS calls FROM usage_ledger, json_each(usage_ledger.tool_calls) AS j ${where} GROUP BY grp, tool`,
      )
      .all(...values);
    return sumsFromRows(rows, tools);
  }

  async admit<R>(
    request: AdmissionRequest,
    decide: (counts: AdmissionScopes) => R | undefined,
  ): Promise<R | undefined> {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const refused = this.#admit(request, decide);
      this.#db.exec('COMMIT');
      return refused;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }

  #admit<R>(request: AdmissionRequest, decide: (counts: AdmissionScopes) => R | undefined): R | undefined {
    const { tenant, agent, workflowId, now } = request;
    const slot = this.#db.prepare('SELECT 1 FROM usage_slots WHERE workflow_id = ?').get(workflowId);
    const started = this.#db.prepare('SELECT 1 FROM usage_ledger WHERE key = ?').get(request.start.key);
    if (!slot && !started) {
      const refused = decide({
        tenant: this.#counts(tenant, undefined, now),
        agent: this.#counts(tenant, agent, now),
      });
      if (refused !== undefined) return refused;
      this.#upsert.run(...entryValues(request.start), null, null);
    }
    this.#db
      .prepare('INSERT OR IGNORE INTO usage_slots (workflow_id, tenant, agent, taken_at) VALUES (?, ?, ?, ?)')
      .run(workflowId, tenant, agent, now);
    return undefined;
  }

  /** The tenant's counts (of `agent`'s runs only, when given). */
  #counts(tenant: string, agent: string | undefined, now: number): AdmissionCounts {
    const scope = agent === undefined ? 'tenant = ?' : 'tenant = ? AND agent = ?';
    const who = agent === undefined ? [tenant] : [tenant, agent];
    const running = this.#db
      .prepare(`SELECT workflow_id FROM usage_slots WHERE ${scope}`)
      .all(...who) as Array<{ workflow_id: string }>;
    const starts = this.#db
      .prepare(`SELECT at FROM usage_ledger WHERE ${scope} AND runs > 0 AND at > ? ORDER BY at`)
      .all(...who, now - MINUTE_MS) as Array<{ at: number }>;
    return {
      running: running.map((row) => row.workflow_id),
      recentStarts: starts.map((row) => Number(row.at)),
      tokensToday: this.#tokens(tenant, startOfUtcDay(now), agent),
    };
  }

  #tokens(tenant: string, since: number, agent: string | undefined): number {
    const scope = agent === undefined ? 'tenant = ?' : 'tenant = ? AND agent = ?';
    const who = agent === undefined ? [tenant] : [tenant, agent];
    const row = this.#db
      .prepare(`SELECT COALESCE(SUM(total_tokens), 0) AS n FROM usage_ledger WHERE ${scope} AND at >= ?`)
      .get(...who, since) as { n: number };
    return Number(row.n);
  }

  async release(workflowId: string): Promise<void> {
    this.#db.prepare('DELETE FROM usage_slots WHERE workflow_id = ?').run(workflowId);
  }

  async tokensSince(tenant: string, since: Date, agent?: string): Promise<number> {
    return this.#tokens(tenant, since.getTime(), agent);
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}
