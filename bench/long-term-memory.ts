/**
 * Benchmark (not a test): long-term memory on LoCoMo's conversations.
 * Each conversation is one resource; every turn is remembered with one `remember` call, as an agent
 * would after each turn. Then each question (category 5, the adversarial ones, left out) is recalled
 * by words only, by meaning only (the offline embedder's vectors) and joined, and scored without a
 * model: evidence recall@k is the share of the question's evidence turns among the top k hits; hit@1
 * whether the first hit is one of them. Also recall latency (the query's embedding included) and
 * remember throughput, for each store.
 *
 * Recall was tuned on two conversations (conv-26, conv-30); the figures are for the other four.
 * The data is not in the repository (LoCoMo is CC BY-NC 4.0): LOCOMO_DIR names a folder of its
 * conversation files (`conv-*.json`, the `locomo10` release of snap-research/locomo); without it the
 * bench says so and skips.
 *   LOCOMO_DIR=/path/to/locomo node bench/long-term-memory.ts
 * PostgreSQL: LTM_POSTGRES_URL (a database it may make a table in), else a throwaway server of the
 * machine's packages, else skipped. LTM_BENCH_STORES (e.g. "in memory") measures only the stores
 * named; LTM_VECTOR_CACHE names a file that keeps the turns' vectors between runs (the embedder's
 * rate then is the first run's). Writes bench/results/long-term-memory.json and .md.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '../src/long-term-memory/embedder.ts';
import { InMemoryLongTermStore } from '../src/long-term-memory/in-memory.ts';
import { localEmbedder } from '../src/long-term-memory/local-embedder.ts';
import { LongTermMemory, type RecallMode } from '../src/long-term-memory/long-term-memory.ts';
import { PostgresLongTermStore } from '../src/long-term-memory/postgres.ts';
import { SqliteLongTermStore } from '../src/long-term-memory/sqlite.ts';
import type { LongTermMemoryStore } from '../src/long-term-memory/types.ts';
import { startPostgres } from '../test/support/postgres-server.ts';
import {
  KS,
  loadConversations,
  percentile,
  score,
  scoredQuestions,
  turnText,
  type Conversation,
} from './locomo.ts';
import { writeResults } from './write-results.ts';

const TUNED_ON = ['conv-26', 'conv-30'];
const MODES: RecallMode[] = ['words', 'meaning', 'joined'];
const round = (n: number, places = 3) => Number(n.toFixed(places));

/**
 * The offline embedder, each turn's vector made once for all the stores (`embedTurns`); queries are
 * embedded at every recall, so recall latency includes them.
 */
/** The offline embedder's rate on the turns: texts a second, and the word pieces a second it reads. */
interface EmbedRate {
  rate: number;
  /** Unknown when the vectors come from an LTM_VECTOR_CACHE file written before it was kept. */
  tokensPerSecond?: number;
}

function turnsEmbeddedOnce(
  embedder: Embedder,
): Embedder & { embedTurns(texts: string[]): Promise<EmbedRate> } {
  const vectors = new Map<string, Float32Array>();
  return {
    id: embedder.id,
    async embed(texts) {
      const missing = texts.filter((text) => !vectors.has(text));
      return missing.length === 0 ? texts.map((text) => vectors.get(text)!) : embedder.embed(texts);
    },
    async embedTurns(texts) {
      const cache = process.env.LTM_VECTOR_CACHE;
      if (cache && (await readFile(cache).catch(() => undefined))) {
        const saved = JSON.parse(await readFile(cache, 'utf8')) as EmbedRate & {
          vectors: Record<string, number[]>;
        };
        for (const [text, vector] of Object.entries(saved.vectors))
          vectors.set(text, Float32Array.from(vector));
        return saved.tokensPerSecond === undefined
          ? { rate: saved.rate }
          : { rate: saved.rate, tokensPerSecond: saved.tokensPerSecond };
      }
      const start = performance.now();
      const usage = { tokens: 0 };
      const made = await embedder.embed(texts, usage);
      const seconds = (performance.now() - start) / 1000;
      const rate = texts.length / seconds;
      const tokensPerSecond = usage.tokens / seconds;
      texts.forEach((text, i) => vectors.set(text, made[i]!));
      if (cache)
        await writeFile(
          cache,
          JSON.stringify({
            rate,
            tokensPerSecond,
            vectors: Object.fromEntries([...vectors].map(([t, v]) => [t, Array.from(v)])),
          }),
        );
      return { rate, tokensPerSecond };
    },
    close: () => embedder.close?.() ?? Promise.resolve(),
  };
}

function turnsOf(conversation: Conversation) {
  return conversation.sessions.flatMap((session) =>
    session.turns.map((turn, i) => ({
      sessionId: session.sessionId,
      // Turns of a session share its date; a minute apart keeps them in order.
      at: session.at.getTime() + i * 60_000,
      id: turn.dia_id,
      text: turnText(turn, session.at.toISOString().slice(0, 10)),
    })),
  );
}

async function measure(
  store: string,
  make: () => LongTermMemoryStore,
  embedder: Embedder | undefined,
  conversations: Conversation[],
) {
  const memory = new LongTermMemory({ store: make(), embedder });
  let turns = 0;
  const rememberStart = performance.now();
  for (const conversation of conversations)
    for (const turn of turnsOf(conversation)) {
      await memory.remember({
        resource: conversation.id,
        sessionId: turn.sessionId,
        at: turn.at,
        messages: [{ id: turn.id, role: 'user', content: turn.text }],
      });
      turns++;
    }
  const rememberTurnsPerSecond = Math.round(turns / ((performance.now() - rememberStart) / 1000));
  const rows = [];
  for (const mode of embedder ? MODES : ['words' as const])
    for (const set of ['held out', 'tuning'] as const) {
      // The tuning set once, on the first store: the ranking does not depend on the store.
      if (set === 'tuning' && store !== 'in memory') continue;
      const chosen = conversations.filter((c) => TUNED_ON.includes(c.id) === (set === 'tuning'));
      const sums = KS.map(() => 0);
      let hits1 = 0;
      const latencies: number[] = [];
      for (const conversation of chosen) {
        const askedAt = conversation.sessions.at(-1)!.at;
        for (const qa of scoredQuestions(conversation)) {
          const start = performance.now();
          const hits = await memory.recall({
            resource: conversation.id,
            query: qa.question,
            limit: Math.max(...KS),
            at: askedAt,
            mode,
          });
          latencies.push(performance.now() - start);
          const { recall, hit1 } = score(
            hits.map((hit) => hit.messageId),
            qa.evidence,
          );
          recall.forEach((r, i) => (sums[i]! += r));
          if (hit1) hits1++;
        }
      }
      const n = latencies.length;
      rows.push({
        store,
        mode,
        conversations: set,
        questions: n,
        ...Object.fromEntries(KS.map((k, i) => [`recall@${k}`, round(sums[i]! / n)])),
        'hit@1': round(hits1 / n),
        recallP50Ms: round(percentile(latencies, 50), 1),
        recallP95Ms: round(percentile(latencies, 95), 1),
        rememberTurnsPerSecond,
      });
    }
  await memory.close();
  return rows;
}

const dir = process.env.LOCOMO_DIR ?? process.argv[2];
if (!dir) {
  console.log(
    'long-term-memory bench skipped: LoCoMo is not in the repository; set LOCOMO_DIR to a folder of its ' +
      'conversation files (conv-*.json): LOCOMO_DIR=/path/to/locomo node bench/long-term-memory.ts',
  );
  process.exit(0);
}
const conversations = await loadConversations(dir);
const scratch = await mkdtemp(join(tmpdir(), 'bench-long-term-memory-'));
const only = process.env.LTM_BENCH_STORES?.split(',');
const postgres = process.env.LTM_POSTGRES_URL
  ? { url: process.env.LTM_POSTGRES_URL }
  : only && !only.includes('PostgreSQL')
    ? { skipped: 'not in LTM_BENCH_STORES' }
    : await startPostgres();
const embedder = turnsEmbeddedOnce(localEmbedder());
try {
  const allTurns = conversations.flatMap((conversation) => turnsOf(conversation).map((turn) => turn.text));
  const embedRate = await embedder.embedTurns(allTurns);
  const embedTurnsPerSecond = Math.round(embedRate.rate);
  const embedTokensPerSecond =
    embedRate.tokensPerSecond === undefined ? undefined : Math.round(embedRate.tokensPerSecond);
  const stores: Array<[string, () => LongTermMemoryStore]> = [
    ['in memory', () => new InMemoryLongTermStore()],
    ['SQLite', () => new SqliteLongTermStore({ path: join(scratch, 'memory.sqlite') })],
  ];
  if ('url' in postgres) {
    const table = `bench_ltm_${Date.now()}`;
    stores.push(['PostgreSQL', () => new PostgresLongTermStore({ connectionString: postgres.url, table })]);
  } else console.log(`PostgreSQL left out: ${postgres.skipped}`);
  if (only) stores.splice(0, stores.length, ...stores.filter(([name]) => only.includes(name)));
  const results: Awaited<ReturnType<typeof measure>> = [];
  for (const [name, make] of stores) results.push(...(await measure(name, make, embedder, conversations)));
  const columns = Object.keys(results[0]!) as Array<keyof (typeof results)[0]>;
  const questions = (set: string) => results.find((row) => row.conversations === set)?.questions;
  const table =
    `# Long-term memory on LoCoMo (${conversations.length} conversations, ${allTurns.length} turns)\n\n` +
    `Recall tuned on ${TUNED_ON.join(' and ')} (${questions('tuning')} questions); "held out" is the other ` +
    `${conversations.length - TUNED_ON.length} (${questions('held out')} questions). Offline embedder ` +
    `(${embedder.id}, two contexts of one thread, all turns in one call): ${embedTurnsPerSecond} turns/s` +
    `${embedTokensPerSecond === undefined ? '' : ` (${embedTokensPerSecond} word pieces/s)`}, ` +
    `the bound of remember with vectors; ` +
    `"remember" below is the store's own rate with each turn's vector made beforehand.\n\n` +
    `| ${columns.join(' | ')} |\n| ${columns.map(() => '---').join(' | ')} |\n` +
    results.map((row) => `| ${columns.map((column) => row[column]).join(' | ')} |`).join('\n') +
    `\n\nEvidence recall@k: the share of a question's evidence turns among the first k recalled; category 5 left out. ` +
    `One remember call per turn. Recall latency includes embedding the query.\n`;
  await writeResults(
    'long-term-memory',
    { embedder: embedder.id, embedTurnsPerSecond, embedTokensPerSecond, results },
    table,
  );
} finally {
  await embedder.close?.();
  if ('stop' in postgres) await postgres.stop();
  await rm(scratch, { recursive: true, force: true });
}
