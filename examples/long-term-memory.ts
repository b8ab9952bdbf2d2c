/**
 * An assistant that remembers a user across chat sessions: each turn is remembered after it answers
 * (in an activity of its own, off the answer's path), the next session recalls it into the prompt,
 * and a working memory (the user's profile, a zod schema) is updated by the model with a tool and
 * shown at the start of every turn. Then the user's remembered messages are forgotten.
 *
 *   npm run build && node examples/long-term-memory.ts
 *
 * The model: Anthropic when ANTHROPIC_API_KEY is set, OpenAI when OPENAI_API_KEY is set, otherwise a
 * ScriptedModel (what CI runs). Everything else is real: the embedded Temporal server, the chat
 * session workflows, the activities, SQLite for the memory.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { Agent, type LanguageModel } from 'toolkit-agent';
import { LongTermMemory, SqliteLongTermStore } from 'toolkit-agent/memory';
import { ScriptedModel, type ScriptedStep } from 'toolkit-agent/testing';

async function chooseModel(): Promise<LanguageModel | ScriptedModel> {
  if (process.env.ANTHROPIC_API_KEY)
    return (await import('@ai-sdk/anthropic')).anthropic('claude-sonnet-4-5');
  if (process.env.OPENAI_API_KEY) return (await import('@ai-sdk/openai')).openai('gpt-5-mini');
  /** What the scripted model was given last: the prompt, with what memory put before it. */
  const seen = (messages: Array<{ content: string }>) => messages.at(-1)!.content;
  return new ScriptedModel([
    // Session 1: the model saves the user's name and pet in working memory, then answers.
    { toolCalls: [{ name: 'update_working_memory', args: { name: 'Ada', pet: 'a beagle named Biscuit' } }] },
    { text: 'Nice to meet you, Ada! Biscuit sounds lovely.' },
    // Session 2: it answers from what memory put in its prompt.
    ({ messages }): ScriptedStep => ({
      text: /Biscuit/.test(seen(messages)) ? 'Your beagle is called Biscuit.' : 'I do not know yet.',
    }),
  ]);
}

const dir = await mkdtemp(join(tmpdir(), 'long-term-memory-'));
const memory = new LongTermMemory({ store: new SqliteLongTermStore({ path: join(dir, 'memory.sqlite') }) });
const llm = await chooseModel();
const agent = new Agent({
  llm,
  systemPrompt: 'You are a friendly assistant. Keep the working memory of the user current.',
  memory: {
    store: memory,
    // Whose memory: the user named in the session id (`<user>.<n>`).
    resource: ({ sessionId }) => sessionId?.split('.')[0],
    recall: { mode: 'auto', limit: 5 },
    workingMemory: z.object({ name: z.string(), pet: z.string() }),
  },
});

/** A turn is remembered beside its answer: waits (at most 20 s) until `query` finds it. */
async function remembered(query: string): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if ((await memory.recall({ resource: 'ada', query, limit: 1 })).length) return;
    await sleep(500);
  }
  throw new Error(`nothing matching "${query}" was remembered within 20 s`);
}

let failed = false;
try {
  const first = await agent
    .chatSession({ sessionId: 'ada.1' })
    .send('Hi, I am Ada and I have a beagle, Biscuit.');
  console.log(`Session 1: ${first.output}`);
  await remembered('beagle');
  const second = await agent.chatSession({ sessionId: 'ada.2' }).send('What is my dog called?');
  console.log(`Session 2: ${second.output}`);
  if (llm instanceof ScriptedModel && !/Biscuit/.test(second.output)) throw new Error('nothing was recalled');
  await remembered('dog called');

  // The user asks to be forgotten: their messages go from every index of the store. (Their working
  // memory lives in the agent's memory store: `toolkit-agent memory forget ada` resets it too.)
  const forgotten = await memory.forget({ resource: 'ada' });
  const left = await memory.recall({ resource: 'ada', query: 'beagle Biscuit', limit: 5 });
  console.log(`Forgot ${forgotten} message(s); ${left.length} recallable afterwards.`);
  if (left.length) throw new Error('something was left after forget');
} catch (error) {
  console.error(`\nThe example failed: ${(error as Error).message}`);
  failed = true;
} finally {
  await agent.close();
  await memory.close();
  await rm(dir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
