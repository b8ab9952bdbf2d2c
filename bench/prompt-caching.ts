/**
 * Benchmark (not a test): what prompt caching saves, measured on a stand-in for the Anthropic
 * Messages API that implements its caching rules and bill (prefix identity up to each
 * `cache_control` block, four breakpoints, the minimum cacheable length, 5-minute and 1-hour TTLs),
 * driven through the real `@ai-sdk/anthropic` client by agent runs on the embedded server.
 * - a 10-step tool loop with about 5,000 tokens of instructions and tools: billed input cost with
 *   caching against caching off (target ≤ 0.30×);
 * - a 50-turn chat session, turns two minutes apart: the same ratio (target ≤ 0.25×) and the share
 *   of input tokens read from the cache from turn 2 on (target ≥ 85%);
 * - the tool loop with a 10-minute approval wait in the middle: the 1-hour TTL (what `'auto'`
 *   chooses for an agent with approvals) against 5 minutes.
 * The stand-in's clock moves by the waits; the runs themselves do not wait. Writes
 * bench/results/prompt-caching.json and .md.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { z } from 'zod';
import type { CachingOption } from '../src/caching/options.ts';
import { BaseConnectorTool, type ToolContext, type ToolOutput } from '../src/tools/connector-base.ts';
import type { AgentDefinition } from '../src/worker.ts';
import {
  AnthropicPromptCache,
  SONNET_PRICES,
  type CachedRequest,
} from '../test/support/providers/anthropic-cache.ts';
import { startAnthropicServer } from '../test/support/providers/anthropic-server.ts';
import type { ProviderTurn } from '../test/support/providers/scripted-provider.ts';
import { startBenchWorker } from './embedded-worker.ts';
import { writeResults } from './write-results.ts';

Runtime.install({ logger: new DefaultLogger('ERROR') });

const MODEL = 'claude-sonnet-4-5';
const LOOP_STEPS = 10;
const CHAT_TURNS = 50;
const MINUTE = 60_000;

/** About 4,000 tokens of instructions (the stand-in counts one token per three characters). */
const INSTRUCTIONS = Array.from(
  { length: 110 },
  (_, i) =>
    `Rule ${i + 1}: look the record up before you answer, quote its id, and say which rule ${i + 1} applied.`,
).join('\n');

/** A lookup tool whose long description brings the instructions and tools to about 5,000 tokens. */
class LookupTool extends BaseConnectorTool {
  readonly name = 'lookup';
  readonly description = Array.from(
    { length: 30 },
    (_, i) => `Field ${i + 1} of a record is returned as it is stored, with its history and owner.`,
  ).join(' ');
  readonly parameters = z.object({ id: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `Record ${String(args.id)}: status open, owner ops, updated yesterday.`, metadata: {} };
  }
}

/** Publishes a record; waits for a person's approval in the agents that say so. */
class PublishTool extends BaseConnectorTool {
  readonly name = 'publish';
  readonly description = 'Publishes a record to the public status page.';
  readonly parameters = z.object({ id: z.string() });
  async run(_context: ToolContext, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `Published ${String(args.id)}.`, metadata: {} };
  }
}

/** `steps - 1` tool calls (a publish in the middle when `publishAt` says), then the answer. */
function loopScript(steps: number, publishAt?: number): ProviderTurn[] {
  return [
    ...Array.from({ length: steps - 1 }, (_, i) => ({
      toolCalls: [
        {
          id: `toolu_${i + 1}`,
          name: i + 1 === publishAt ? 'publish' : 'lookup',
          args: { id: `R-${i + 1}` },
        },
      ],
      usage: { input: 0, output: 40 },
    })),
    { text: 'All records checked.', usage: { input: 0, output: 60 } },
  ];
}

/** Dollars of a request's input: uncached input, cache reads and writes, each at its price. */
function inputCost({ usage }: CachedRequest): number {
  const p = SONNET_PRICES;
  return (
    (usage.input_tokens * p.input +
      usage.cache_read_input_tokens * p.cacheRead +
      usage.cache_creation.ephemeral_5m_input_tokens * p.cacheWrite5m +
      usage.cache_creation.ephemeral_1h_input_tokens * p.cacheWrite1h) /
    1_000_000
  );
}

const total = (requests: CachedRequest[]) => requests.reduce((sum, r) => sum + inputCost(r), 0);

/** One agent on the stand-in, and what its cache billed. */
async function onStandIn<T>(
  turns: ProviderTurn[],
  definition: Omit<AgentDefinition, 'llm'>,
  work: (bench: Awaited<ReturnType<typeof startBenchWorker>>, cache: AnthropicPromptCache) => Promise<T>,
): Promise<{ requests: CachedRequest[]; result: T }> {
  const cache = new AnthropicPromptCache(SONNET_PRICES);
  const server = await startAnthropicServer(turns, undefined, cache);
  const llm = createAnthropic({ apiKey: 'sk-ant-bench', baseURL: `${server.url}/v1` })(MODEL);
  const bench = await startBenchWorker({
    agent: { llm, systemPrompt: INSTRUCTIONS, maxIterations: LOOP_STEPS + 2, ...definition },
  });
  try {
    return { requests: cache.requests, result: await work(bench, cache) };
  } finally {
    await bench.stop();
    await server.close();
  }
}

async function toolLoop(caching: CachingOption) {
  return onStandIn(loopScript(LOOP_STEPS), { tools: [new LookupTool()], caching }, ({ agents }) =>
    agents.run('agent', 'Check records R-1 to R-9, one at a time.'),
  );
}

async function chat(caching: CachingOption) {
  const turns = Array.from({ length: CHAT_TURNS }, (_, i) => ({
    text: `Answer ${i + 1}: the record is open and owned by ops; nothing else changed since the last check.`,
    usage: { input: 0, output: 30 },
  }));
  return onStandIn(turns, { tools: [new LookupTool()], caching }, async ({ agents, memoryStore }, cache) => {
    const session = agents.chatSession('agent', { memoryStore });
    for (let turn = 1; turn <= CHAT_TURNS; turn++) {
      if (turn > 1) cache.advance(2 * MINUTE);
      await session.send(`Question ${turn}: what is the state of record R-${turn}, in one sentence?`);
    }
  });
}

async function approvalLoop(caching: CachingOption) {
  const publishAt = LOOP_STEPS / 2;
  return onStandIn(
    loopScript(LOOP_STEPS, publishAt),
    { tools: [new LookupTool(), new PublishTool()], caching, approval: { tools: ['publish'] } },
    async ({ agents }, cache) => {
      const handle = await agents.start('agent', 'Check records R-1 to R-9 and publish R-5.');
      for await (const event of handle.events()) {
        if (event.type !== 'approval_requested') continue;
        cache.advance(10 * MINUTE);
        await handle.approve(String(event.payload.call_id));
        break;
      }
      return handle.result();
    },
  );
}

const started = performance.now();
const loopOn = await toolLoop('auto');
const loopOff = await toolLoop(false);
const chatOn = await chat('auto');
const chatOff = await chat(false);
const chat5m = await chat({ ttl: '5m' });
const wait1h = await approvalLoop('auto');
const wait5m = await approvalLoop({ ttl: '5m' });

const laterTurns = chatOn.requests.slice(1);
const read = laterTurns.reduce((sum, r) => sum + r.usage.cache_read_input_tokens, 0);
const sent = laterTurns.reduce(
  (sum, r) =>
    sum + r.usage.input_tokens + r.usage.cache_read_input_tokens + r.usage.cache_creation_input_tokens,
  0,
);
const maxMarkers = Math.max(
  ...[loopOn, chatOn, wait1h, wait5m].flatMap((run) => run.requests.map((r) => r.breakpoints.length)),
);
const results = {
  date: new Date().toISOString(),
  node: process.version,
  model: MODEL,
  prefix_tokens: loopOff.requests[0]!.usage.input_tokens,
  tool_loop: {
    steps: loopOn.requests.length,
    input_cost_cached: total(loopOn.requests),
    input_cost_uncached: total(loopOff.requests),
    ratio: total(loopOn.requests) / total(loopOff.requests),
    target: 0.3,
  },
  chat: {
    turns: chatOn.requests.length,
    input_cost_cached: total(chatOn.requests),
    input_cost_uncached: total(chatOff.requests),
    ratio: total(chatOn.requests) / total(chatOff.requests),
    target_ratio: 0.25,
    ratio_with_5m_ttl: total(chat5m.requests) / total(chatOff.requests),
    read_share_from_turn_2: read / sent,
    target_read_share: 0.85,
  },
  approval_wait: {
    wait_minutes: 10,
    input_cost_1h: total(wait1h.requests),
    input_cost_5m: total(wait5m.requests),
    ratio_1h_to_5m: total(wait1h.requests) / total(wait5m.requests),
  },
  most_markers_in_a_request: maxMarkers,
  wall_ms: performance.now() - started,
};
const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
const money = (dollars: number) => `$${dollars.toFixed(4)}`;
const table = [
  '# Prompt caching',
  '',
  `Measured ${results.date} on Node ${results.node}: agent runs on the embedded server, the real`,
  `\`@ai-sdk/anthropic\` client, a stand-in for the Messages API with its caching rules and ${MODEL}'s prices`,
  `(input $3, 5-minute write $3.75, 1-hour write $6, read $0.30 per million tokens). First request:`,
  `${results.prefix_tokens} input tokens. Costs are of input only (output is the same either way).`,
  '',
  '| scenario | cached | uncached | ratio | target |',
  '| --- | --- | --- | --- | --- |',
  `| ${LOOP_STEPS}-step tool loop | ${money(results.tool_loop.input_cost_cached)} | ${money(results.tool_loop.input_cost_uncached)} | ${results.tool_loop.ratio.toFixed(3)}× | ≤ 0.30× (${verdict(results.tool_loop.ratio <= 0.3)}) |`,
  `| ${CHAT_TURNS}-turn chat, turns 2 min apart | ${money(results.chat.input_cost_cached)} | ${money(results.chat.input_cost_uncached)} | ${results.chat.ratio.toFixed(3)}× | ≤ 0.25× (${verdict(results.chat.ratio <= 0.25)}) |`,
  '',
  `The chat with the 5-minute TTL instead (turns this close do not need 1 hour): ${results.chat.ratio_with_5m_ttl.toFixed(3)}×.`,
  `Chat, turns 2 to ${CHAT_TURNS}: ${(100 * results.chat.read_share_from_turn_2).toFixed(1)}% of input tokens read from the cache (target ≥ 85%: ${verdict(results.chat.read_share_from_turn_2 >= 0.85)}).`,
  `Tool loop with a 10-minute approval wait after step ${LOOP_STEPS / 2}: ${money(results.approval_wait.input_cost_1h)} with the 1-hour TTL ('auto'), ` +
    `${money(results.approval_wait.input_cost_5m)} with 5 minutes (${results.approval_wait.ratio_1h_to_5m.toFixed(3)}×).`,
  `Most cache_control markers in one request: ${maxMarkers} (limit 4).`,
  '',
].join('\n');
await writeResults('prompt-caching', results, table);
