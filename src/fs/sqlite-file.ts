import { createRequire } from 'node:module';
import type * as NodeSqlite from 'node:sqlite';
import type { DatabaseSync } from 'node:sqlite';
import { privateDataDirFor } from '../paths.ts';
import { privateFileSync } from './private-file.ts';

/**
 * Opens a SQLite file (`node:sqlite`) that the worker processes of one machine share: a file (and
 * folder) only the owner can read, write-ahead logging, and a 5 s wait for another process's lock.
 * `':memory:'` opens a database of this process alone.
 */
export function openSharedSqlite(path: string): DatabaseSync {
  if (path !== ':memory:') {
    privateDataDirFor(path);
    privateFileSync(path);
  }
  const db = new (sqlite().DatabaseSync)(path);
  // The wait first: switching to write-ahead logging takes the lock another process may hold.
  db.exec('PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL;');
  return db;
}

/**
 * `node:sqlite`, loaded when a store is made rather than when the package is imported: a Node.js
 * without it (before 22.13) then gets the version check's message, not a failed import.
 */
function sqlite(): typeof NodeSqlite {
  return createRequire(import.meta.url)('node:sqlite') as typeof NodeSqlite;
}
