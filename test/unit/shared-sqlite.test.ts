import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { openSharedSqlite } from '../../src/fs/sqlite-file.ts';

/** Holds an exclusive lock on `path` for `ms` in another thread (as another worker process would), then lets go. */
function holdLock(path: string, ms: number): Promise<Worker> {
  const worker = new Worker(
    `const { DatabaseSync } = require('node:sqlite');
     const { parentPort, workerData } = require('node:worker_threads');
     const db = new DatabaseSync(workerData.path);
     db.exec('BEGIN EXCLUSIVE');
     parentPort.postMessage('locked');
     Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.ms);
     db.exec('COMMIT');
     db.close();`,
    { eval: true, workerData: { path, ms } },
  );
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve(worker));
    worker.once('error', reject);
  });
}

describe('openSharedSqlite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shared-sqlite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('waits for another process that holds the lock while it first opens the file, instead of failing', async () => {
    const path = join(dir, 'usage.db');
    const worker = await holdLock(path, 300);
    const db = openSharedSqlite(path);
    expect((db.prepare('PRAGMA journal_mode').get() as { journal_mode: string }).journal_mode).toBe('wal');
    db.close();
    await worker.terminate();
  });
});
