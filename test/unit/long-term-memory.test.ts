import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.ts';
import { InMemoryLongTermStore } from '../../src/long-term-memory/in-memory.ts';
import { LongTermMemory } from '../../src/long-term-memory/long-term-memory.ts';
import { SqliteLongTermStore } from '../../src/long-term-memory/sqlite.ts';
import {
  describeLongTermMemory,
  expectReplyFoundByOldQuestion,
} from '../support/long-term-memory-behaviour.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function sqliteFile(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'long-term-memory-'));
  dirs.push(dir);
  return join(dir, 'memory.sqlite');
}

describeLongTermMemory('InMemoryLongTermStore', async () => ({ store: new InMemoryLongTermStore() }));

describeLongTermMemory('SqliteLongTermStore', async () => {
  const file = await sqliteFile();
  return {
    store: new SqliteLongTermStore({ path: file }),
    indexedWith: async (words) => {
      const db = new DatabaseSync(file);
      try {
        // The index answers from its own entries; the check fails if it disagrees with its table.
        db.exec("INSERT INTO ltm_words (ltm_words, rank) VALUES ('integrity-check', 1)");
        const query = words.map((word) => `"${word}"`).join(' OR ');
        return (
          db.prepare('SELECT count(*) AS n FROM ltm_words WHERE ltm_words MATCH ?').get(query) as {
            n: number;
          }
        ).n;
      } finally {
        db.close();
      }
    },
  };
});

describe('SqliteLongTermStore and a file of an earlier version', () => {
  it('indexes its messages with the words of the message before, keeping them', async () => {
    const file = await sqliteFile();
    // The file as the version before the context column made it: its index held the text only.
    const db = new DatabaseSync(file);
    db.exec(`
      CREATE TABLE ltm_messages (id INTEGER PRIMARY KEY, resource TEXT NOT NULL, message_id TEXT NOT NULL,
        session_id TEXT NOT NULL, role TEXT NOT NULL, text TEXT NOT NULL, at INTEGER NOT NULL,
        UNIQUE (resource, message_id));
      CREATE VIRTUAL TABLE ltm_text USING fts5(text, content = 'ltm_messages', content_rowid = 'id');
      CREATE TRIGGER ltm_messages_insert AFTER INSERT ON ltm_messages BEGIN
        INSERT INTO ltm_text (rowid, text) VALUES (new.id, new.text);
      END;
      INSERT INTO ltm_messages (resource, message_id, session_id, role, text, at)
        VALUES ('ana', 'old', 's1', 'user', 'Which city did your sister move to?', 0);
    `);
    db.close();
    const memory = new LongTermMemory({ store: new SqliteLongTermStore({ path: file }) });
    await expectReplyFoundByOldQuestion(memory);
    await memory.close();
    // Opened again, up to date: nothing to do, the same recall.
    const again = new LongTermMemory({ store: new SqliteLongTermStore({ path: file }) });
    const ids = async () =>
      (await again.recall({ resource: 'ana', query: 'sister city', limit: 5 })).map((hit) => hit.messageId);
    expect(await ids()).toEqual(['old', 'new']);
    await again.close();
    const after = new DatabaseSync(file);
    const tables = after.prepare(
      `SELECT name FROM sqlite_master WHERE name IN ('ltm_text', 'ltm_messages_insert')`,
    );
    expect(tables.all()).toEqual([]);
    after.close();
  });
});

describe('LongTermMemory input checks', () => {
  const m = new LongTermMemory({ store: new InMemoryLongTermStore() });

  it('names what is wrong with a bad call', async () => {
    await expect(m.remember({ resource: '', sessionId: 's', at: 0, messages: [] })).rejects.toThrow(
      /remember: resource must be a non-empty string/,
    );
    await expect(
      m.remember({ resource: 'a', sessionId: 's', at: 'yesterday', messages: [] }),
    ).rejects.toThrow(/remember: at is not a time/);
    await expect(
      m.remember({
        resource: 'a',
        sessionId: 's',
        at: 0,
        messages: [{ role: 'robot' as 'user', content: 'x' }],
      }),
    ).rejects.toThrow(/messages\[0\]\.role is "robot"; use one of user, assistant, system, tool/);
    await expect(
      m.remember({
        resource: 'a',
        sessionId: 's',
        at: 0,
        messages: [
          { id: 'k', role: 'user', content: 'x' },
          { id: 'k', role: 'user', content: 'y' },
        ],
      }),
    ).rejects.toThrow(/"k" is given twice/);
    await expect(m.recall({ resource: 'a', query: 'x', limit: 0 })).rejects.toThrow(
      /limit must be a whole number from 1/,
    );
    await expect(m.recall({ resource: 'a', query: 'x', limit: 3, since: 10, until: 5 })).rejects.toThrow(
      /since is after until/,
    );
    await expect(m.forget({ resource: 'a', sessionId: '' })).rejects.toBeInstanceOf(ConfigurationError);
    expect(() => new LongTermMemory({} as never)).toThrow(/LongTermMemory needs a store/);
  });
});
