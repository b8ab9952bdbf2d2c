import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { AgentChatSession } from '../client/chat-session.ts';
import { loadConfig, pickAgent } from './config.ts';
import { targetOf, withTargetOptions } from './target.ts';
import { LiveView } from './live-view.ts';
import { asText, note, paint } from './output.ts';

interface ChatOptions {
  session?: string;
  agent?: string;
  model?: string;
  tenant?: string;
  address?: string;
  namespace?: string;
  profile?: string;
  worker: boolean;
}

/** Prints the conversation so far: the user's and the agent's messages, tool results in brief. */
async function printHistory(session: AgentChatSession): Promise<void> {
  const messages = await session.history();
  if (!messages.length) return void process.stdout.write(paint('dim', '(no turns yet)\n'));
  for (const message of messages) {
    const text = message.content.trim();
    if (!text) continue;
    if (message.role === 'user') process.stdout.write(`${paint('bold', 'you:')} ${text}\n`);
    else if (message.role === 'assistant') process.stdout.write(`${paint('bold', 'agent:')} ${text}\n`);
    else process.stdout.write(paint('dim', `  ${message.role}: ${text.split('\n', 1)[0]!.slice(0, 80)}\n`));
  }
}

/** One turn, streamed: tool calls and text as they happen, then the answer. */
async function turn(session: AgentChatSession, prompt: string, waiting: Set<string>): Promise<void> {
  const view = new LiveView('human');
  try {
    for await (const event of session.stream(prompt)) {
      view.event(event);
      if (event.type === 'approval_requested') {
        waiting.add(asText(event.payload.call_id));
        view.progress(
          `${asText(event.payload.tool)}(${asText(event.payload.args)}) waits for approval: /approve or /reject`,
        );
      }
      if (event.type === 'approval_granted' || event.type === 'approval_rejected') {
        waiting.delete(asText(event.payload.call_id));
      }
      const own = event.payload.sub_run === undefined; // not a sub-agent run's end
      if (own && event.type === 'run_completed') view.answer(asText(event.payload.output));
      if (own && event.type === 'run_cancelled') view.answer(asText(event.payload.output) || '(cancelled)');
    }
  } finally {
    view.stop();
  }
}

export function registerChat(program: Command): void {
  withTargetOptions(program.command('chat'))
    .description(
      'An interactive session with an agent: /history, /cancel, /approve, /reject, /exit; --session resumes one',
    )
    .option('--session <id>', 'resume (or name) a session')
    .option('-a, --agent <name>', "the config's agent (default: its defaultAgent or first)")
    .option('-m, --model <name>', "one of the agent's models, by name")
    .option('--tenant <tenant>', "use one end user's credentials")
    .option('--no-worker', 'do not serve the agents in this process (a `toolkit-agent worker` does)')
    .action(async (opts: ChatOptions, cmd: Command) => {
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      const agent = pickAgent(loaded.config, opts.agent);
      const { serve } = await import('./serving.ts');
      const serving = await serve(loaded, { ...targetOf(opts), worker: opts.worker, temporary: true });
      const session = serving.agents.chatSession(agent, {
        memoryStore: serving.memoryStore,
        ...(opts.session ? { sessionId: opts.session } : {}),
        ...(opts.model ? { model: opts.model } : {}),
        ...(opts.tenant ? { tenant: opts.tenant } : {}),
      });
      const rl = createInterface({
        input: process.stdin,
        output: process.stdout,
        terminal: Boolean(process.stdin.isTTY),
      });
      rl.setPrompt(paint('cyan', 'you› '));
      note(
        `Chat with ${agent} · session ${session.sessionId} · /history /cancel /exit (/approve, /reject when a tool asks)`,
      );
      const queue: string[] = [];
      let busy: Promise<void> | undefined;
      const next = (): void => {
        const item = queue.shift();
        if (item === undefined) return void (isClosed || rl.prompt());
        if (item === '/exit') {
          queue.length = 0;
          return rl.close();
        }
        busy = (item === '/history' ? printHistory(session) : turn(session, item, waiting))
          .catch((error: unknown) => note(`The turn failed: ${(error as Error).message}`))
          .finally(() => {
            busy = undefined;
            next();
          });
      };
      const waiting = new Set<string>();
      const cancel = (): void => {
        if (!busy) return note('No turn is running.');
        session.cancelTurn('cancelled in the chat').catch((error: unknown) => note((error as Error).message));
      };
      /** Decides every call of the turn that waits for approval. */
      const decide = (approve: boolean): void => {
        if (!waiting.size) return note('No tool call waits for approval.');
        for (const callId of waiting) {
          const sent = approve
            ? session.approve(callId, { note: 'approved in the chat' })
            : session.reject(callId, 'declined in the chat');
          sent.catch((error: unknown) => note((error as Error).message));
        }
      };
      let isClosed = false;
      const closed = new Promise<void>((resolve) =>
        rl.once('close', () => {
          isClosed = true;
          resolve();
        }),
      );
      rl.on('SIGINT', () => (busy ? cancel() : rl.close()));
      rl.on('line', (line) => {
        const text = line.trim();
        if (text === '/cancel') return cancel();
        if (text === '/approve' || text === '/reject') return decide(text === '/approve');
        if (text.startsWith('/') && !['/history', '/exit'].includes(text)) {
          return note('Commands: /history, /cancel, /approve, /reject, /exit.');
        }
        if (!text) return busy ? undefined : rl.prompt();
        // In order: typed (or piped) while a turn runs, a line waits for it.
        queue.push(text);
        if (!busy) next();
      });
      rl.prompt();
      await closed;
      // Lines piped on standard input: let their turns finish before leaving.
      while (busy ?? queue.length) await (busy ?? Promise.resolve(next()));
      note(
        `Session ${session.sessionId} is kept: resume it with \`toolkit-agent chat --session ${session.sessionId}\`.`,
      );
      await serving.close();
    });
}
