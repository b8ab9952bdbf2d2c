/**
 * An AG-UI client (the official `@ag-ui/client`'s `HttpAgent`, what CopilotKit speaks) chats with a
 * durable chat session through `createAgUiHandler`: each run is a turn of the session `chat-<threadId>`;
 * a table booking ends the run with an AG-UI interrupt, and the next run's `resume` approves it in
 * the waiting turn; a second message on the thread is the session's next turn, with its context; a
 * third offers a frontend tool (the page's calendar): the model's call of it ends the run, the page
 * runs it and sends the result, and the same turn answers.
 *
 *   npm run build && node examples/ag-ui.ts
 *
 * AG-UI needs its packages next to toolkit-agent: `npm install @ag-ui/core @ag-ui/encoder` (and
 * `@ag-ui/client` for the client). The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when
 * OPENAI_API_KEY is set, otherwise a ScriptedModel (what CI runs). Everything else is real: the
 * embedded Temporal server, the worker, the chat session workflow, HTTP and Server-Sent Events.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { HttpAgent } from '@ag-ui/client';
import { z } from 'zod';
import {
  AgentClient,
  BaseConnectorTool,
  createAgentWorker,
  EmbeddedTemporalServer,
  InMemoryMemoryStore,
  type LanguageModel,
  type ToolOutput,
} from 'toolkit-agent';
import { createAgUiHandler } from 'toolkit-agent/ag-ui';
import { ScriptedModel } from 'toolkit-agent/testing';

class BookTableTool extends BaseConnectorTool {
  readonly name = 'book_table';
  readonly description = 'Books a table at the restaurant (a person approves each booking)';
  readonly parameters = z.object({ guests: z.number().int().min(1), time: z.string() });
  async run(_context: unknown, args: Record<string, unknown>): Promise<ToolOutput> {
    return { text: `Booked a table for ${String(args.guests)} at ${String(args.time)}.`, metadata: {} };
  }
}

const llm: LanguageModel | ScriptedModel = process.env.ANTHROPIC_API_KEY
  ? (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5')
  : process.env.OPENAI_API_KEY
    ? (await import('@ai-sdk/openai')).openai('gpt-5-mini')
    : new ScriptedModel([
        { toolCalls: [{ name: 'book_table', args: { guests: 2, time: '19:30' } }] },
        { text: 'Your table for 2 at 19:30 is booked.' },
        { text: 'You booked a table for 2 at 19:30.' },
        { toolCalls: [{ name: 'add_to_calendar', args: { title: 'Dinner for 2', time: '19:30' } }] },
        { text: 'It is in your calendar.' },
      ]);

const temporal = await EmbeddedTemporalServer.start();
const taskQueue = 'ag-ui-example';
const worker = await createAgentWorker({
  temporal: { address: temporal.address },
  taskQueue,
  logLevel: 'WARN',
  memoryStore: new InMemoryMemoryStore(),
  agents: {
    host: {
      llm,
      tools: [new BookTableTool()],
      approval: { tools: ['book_table'] },
      systemPrompt: 'You are the host of a restaurant. Book tables when asked; answer briefly.',
    },
  },
});
const serving = worker.run();
const agents = await AgentClient.connect({ address: temporal.address, taskQueue });

// POST /ag-ui (a RunAgentInput), GET /ag-ui/<threadId> (the running turn, for connectAgent).
const agUi = createAgUiHandler({ client: agents, agent: 'host' });
const server = createServer((request, response) => {
  const body = request.method === 'POST' ? Readable.toWeb(request) : undefined;
  const webRequest = new Request(new URL(request.url ?? '/', 'http://localhost'), {
    method: request.method ?? 'GET',
    headers: Object.entries(request.headers).flatMap(([k, v]) => (typeof v === 'string' ? [[k, v]] : [])),
    ...(body ? { body, duplex: 'half' } : {}),
  });
  void agUi(webRequest).then((answer) => {
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    if (!answer.body) return void response.end();
    const stream = Readable.fromWeb(answer.body);
    response.once('close', () => stream.destroy());
    stream.pipe(response);
  });
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ag-ui`;

try {
  const client = new HttpAgent({ url });
  const said = (messages: typeof client.messages) =>
    messages.flatMap((m) => (m.role === 'assistant' && typeof m.content === 'string' ? [m.content] : []));

  client.addMessage({ id: 'u1', role: 'user', content: 'A table for two at 19:30, please.' });
  await client.runAgent();
  const [interrupt] = client.pendingInterrupts;
  if (!interrupt) throw new Error('The booking did not wait for approval.');
  console.log(`Interrupt ${interrupt.id}: ${interrupt.message ?? interrupt.reason}`);

  // The next run answers the interrupt: the waiting turn books the table and answers.
  const approved = await client.runAgent({
    resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { approved: true } }],
  });
  console.log(`Answer: ${said(approved.newMessages).join(' ')}`);

  // A second message on the thread is the session's next turn.
  client.addMessage({ id: 'u2', role: 'user', content: 'What did I book?' });
  const next = await client.runAgent();
  const answer = said(next.newMessages).join(' ');
  console.log(`Answer: ${answer}`);
  if (!answer) throw new Error('The second turn did not answer.');

  // A tool of the page (a frontend tool): offered to the model for this turn, run by the page.
  const calendar = {
    name: 'add_to_calendar',
    description: "Adds an event to the user's calendar, in the page",
    parameters: {
      type: 'object',
      properties: { title: { type: 'string' }, time: { type: 'string' } },
      required: ['title', 'time'],
    },
  };
  client.addMessage({ id: 'u3', role: 'user', content: 'Put it in my calendar.' });
  let pending: string[] = [];
  await client.runAgent(
    { tools: [calendar] },
    {
      onRunFinishedEvent: (done) =>
        void (pending = done.outcome === 'success' ? done.pendingToolCallIds : []),
    },
  );
  if (pending.length === 0 && llm instanceof ScriptedModel) throw new Error('The calendar was not asked.');
  for (const callId of pending) {
    const call = client.messages
      .flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []))
      .find((c) => c.id === callId);
    console.log(`The page runs ${call?.function.name}(${call?.function.arguments})`);
    client.addMessage({ id: `r-${callId}`, role: 'tool', toolCallId: callId, content: 'Added.' });
  }
  if (pending.length > 0) {
    // The results continue the waiting turn: it answers from them.
    const added = await client.runAgent({ tools: [calendar] });
    console.log(`Answer: ${said(added.newMessages).join(' ')}`);
  }
} finally {
  server.closeAllConnections();
  server.close();
  await agents.close();
  worker.shutdown();
  await serving;
  await temporal.close();
}
