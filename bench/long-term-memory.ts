/**
 * Benchmark (not a test): long-term memory on LoCoMo's conversations.
 * Each conversation is one resource; every turn is remembered with one `remember` call, as an agent
 * would after each turn (text: the session's date, the speaker, what was said and the caption of a
 * shared photo). Then each question (category 5, the adversarial ones, left out) is recalled and
 * scored without a model: evidence recall@k is the share of the question's evidence turns among the
 * top k hits; hit@1 whether the first hit is one of them. Also recall p95 latency and remember
 * throughput (turns/s), for each store.
 *
 * The data is not in the repository: LOCOMO_DIR names a folder of LoCoMo conversation files
 * (`conv-*.json`, the `locomo10` release of snap-research/locomo).
 *   LOCOMO_DIR=/path/to/locomo node bench/long-term-memory.ts
 * With LTM_POSTGRES_URL (a database it may make a table in), PostgreSQL is measured too.
 * Writes bench/results/long-term-memory.json and .md.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryLongTermStore } from '../src/long-term-memory/in-memory.ts';
import { LongTermMemory } from '../src/long-term-memory/long-term-memory.ts';
import { PostgresLongTermStore } from '../src/long-term-memory/postgres.ts';
import { SqliteLongTermStore } from '../src/long-term-memory/sqlite.ts';
import type { LongTermMemoryStore } from '../src/long-term-memory/types.ts';
import { writeResults } from './write-results.ts';

const KS = [5, 10, 20] as const;

interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
interface Question {
  question: string;
  evidence: string[];
  category: number;
}
interface Conversation {
  id: string;
  sessions: Array<{ sessionId: string; at: Date; turns: Turn[] }>;
  questions: Question[];
}

const months = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** LoCoMo's session dates, e.g. "1:56 pm on 8 May, 2023", read as UTC. */
function sessionDate(text: string): Date {
  const m = /^(\d{1,2}):(\d{2}) (am|pm) on (\d{1,2}) (\w+),? (\d{4})$/i.exec(text.trim());
  const month = m ? months.indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`A session date LoCoMo does not write: ${JSON.stringify(text)}`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

async function loadConversations(dir: string): Promise<Conversation[]> {
  const files = (await readdir(dir)).filter((name) => /^conv-.*\.json$/.test(name)).sort();
  if (files.length === 0) throw new Error(`No conv-*.json files in LOCOMO_DIR=${dir}.`);
  return Promise.all(
    files.map(async (file) => {
      const raw = JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, unknown>;
      const numbers = Object.keys(raw)
        .map((key) => /^session_(\d+)$/.exec(key)?.[1])
        .filter((n): n is string => n !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
      return {
        id: file.replace(/\.json$/, ''),
        sessions: numbers.map((n) => ({
          sessionId: `session_${n}`,
          at: sessionDate(raw[`session_${n}_date_time`] as string),
          turns: raw[`session_${n}`] as Turn[],
        })),
        questions: raw.qa as Question[],
      };
    }),
  );
}

function turnText(turn: Turn, date: string): string {
  const photo = turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : '';
  return `${date} ${turn.speaker}: ${turn.text}${photo}`;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function measure(name: string, store: LongTermMemoryStore, conversations: Conversation[]) {
  const memory = new LongTermMemory({ store });
  let turns = 0;
  const rememberStart = performance.now();
  for (const conversation of conversations)
    for (const session of conversation.sessions) {
      const date = session.at.toISOString().slice(0, 10);
      for (const [i, turn] of session.turns.entries()) {
        // Turns of a session share its date; a minute apart keeps them in order.
        await memory.remember({
          resource: conversation.id,
          sessionId: session.sessionId,
          at: session.at.getTime() + i * 60_000,
          messages: [{ id: turn.dia_id, role: 'user', content: turnText(turn, date) }],
        });
        turns++;
      }
    }
  const rememberSeconds = (performance.now() - rememberStart) / 1000;

  const recallSums = Object.fromEntries(KS.map((k) => [k, 0])) as Record<number, number>;
  let firstHits = 0;
  let questions = 0;
  const latencies: number[] = [];
  for (const conversation of conversations)
    for (const qa of conversation.questions) {
      if (qa.category === 5 || qa.evidence.length === 0) continue;
      const start = performance.now();
      const hits = await memory.recall({
        resource: conversation.id,
        query: qa.question,
        limit: Math.max(...KS),
      });
      latencies.push(performance.now() - start);
      const ids = hits.map((hit) => hit.messageId);
      const evidence = new Set(qa.evidence);
      for (const k of KS)
        recallSums[k]! += ids.slice(0, k).filter((id) => evidence.has(id)).length / evidence.size;
      if (ids[0] !== undefined && evidence.has(ids[0])) firstHits++;
      questions++;
    }
  await memory.close();
  const round = (n: number, places = 3) => Number(n.toFixed(places));
  return {
    store: name,
    questions,
    turns,
    ...Object.fromEntries(KS.map((k) => [`recall@${k}`, round(recallSums[k]! / questions)])),
    'hit@1': round(firstHits / questions),
    recallP95Ms: round(percentile(latencies, 95), 2),
    rememberTurnsPerSecond: Math.round(turns / rememberSeconds),
  };
}

const dir = process.env.LOCOMO_DIR ?? process.argv[2];
if (!dir) {
  console.error(
    'Set LOCOMO_DIR (or pass it as the first argument) to a folder of LoCoMo conversation files (conv-*.json): ' +
      'LOCOMO_DIR=/path/to/locomo node bench/long-term-memory.ts',
  );
  process.exit(2);
}
const conversations = await loadConversations(dir);
const scratch = await mkdtemp(join(tmpdir(), 'bench-long-term-memory-'));
try {
  const results = [
    await measure('in-memory (MiniSearch BM25)', new InMemoryLongTermStore(), conversations),
    await measure(
      'SQLite (FTS5 bm25)',
      new SqliteLongTermStore({ path: join(scratch, 'memory.sqlite') }),
      conversations,
    ),
  ];
  const postgresUrl = process.env.LTM_POSTGRES_URL;
  if (postgresUrl) {
    const table = `bench_ltm_${Date.now()}`;
    const store = new PostgresLongTermStore({ connectionString: postgresUrl, table });
    results.push(await measure('PostgreSQL (full text, ts_rank)', store, conversations));
  }
  const columns = Object.keys(results[0]!) as Array<keyof (typeof results)[0]>;
  const table =
    `# Long-term memory on LoCoMo (${conversations.length} conversations, ${results[0]!.questions} questions, ` +
    `${results[0]!.turns} turns)\n\n| ${columns.join(' | ')} |\n| ${columns.map(() => '---').join(' | ')} |\n` +
    results.map((row) => `| ${columns.map((column) => row[column]).join(' | ')} |`).join('\n') +
    `\n\nEvidence recall@k: the share of a question's evidence turns among the first k recalled; category 5 left out. ` +
    `One remember call per turn.\n`;
  await writeResults('long-term-memory', results, table);
} finally {
  await rm(scratch, { recursive: true, force: true });
}
