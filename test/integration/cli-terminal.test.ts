import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CLI_CONFIG } from '../support/cli.ts';
import { hasTmux, TmuxTerminal } from '../support/tmux.ts';

const tmux = await hasTmux();
if (!tmux) console.warn('Skipping the terminal tests: tmux is not installed (.ci/run installs it).');

let home: string;
const terminals: TmuxTerminal[] = [];
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'cli-tty-'));
});
afterAll(async () => {
  for (const terminal of terminals) await terminal.close();
  await rm(home, { recursive: true, force: true });
});

function env(taskQueue = `cli-tty-${randomUUID()}`): Record<string, string> {
  return {
    TOOLKIT_AGENT_HOME: home,
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TOOLKIT_AGENT_WORKFLOW_BUNDLE: inject('workflowBundlePath'),
    CLI_TASK_QUEUE: taskQueue,
  };
}

async function open(args: string[], environment: Record<string, string>, pipe = ''): Promise<TmuxTerminal> {
  const terminal = await TmuxTerminal.start(['-c', CLI_CONFIG, ...args], environment, pipe);
  terminals.push(terminal);
  return terminal;
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;
/** A colour or style escape (SGR), as `capture-pane -e` shows the screen's attributes. */
const SGR = new RegExp(`${String.fromCharCode(27)}\\[[\\d;]*m`);

describe.skipIf(!tmux)('toolkit-agent in a terminal (tmux)', { timeout: 120_000 }, () => {
  it('run shows the spinner with the step and elapsed time, then the tool call and the answer', async () => {
    const terminal = await open(['run', 'please add 2 and 3'], env());
    const screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/✓ add \d+ ms {2}5/);
    expect(screen).toMatch(/^The sum is 5\.$/m);
    expect(screen).toMatch(/completed in [\d.]+s · 2 steps/);
    expect(screen).toContain('[exit 0]');
  });

  it('run: the spinner turns while the model works, and Ctrl-C cancels the run cleanly', async () => {
    const terminal = await open(['run', 'slow answer please'], env());
    const running = await terminal.waitFor(/step 1: thinking \d+\.\ds/);
    expect(running).toMatch(SPINNER);
    // The elapsed time moves on.
    const first = /thinking (\d+\.\d)s/.exec(running)![1]!;
    await terminal.waitFor(new RegExp(`thinking (?!${first.replace('.', '\\.')}s)\\d+\\.\\ds`));
    await terminal.send('C-c');
    const screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/Cancelling the run/);
    expect(screen).toMatch(/cancelled in [\d.]+s · 1 steps/);
    expect(screen).toContain('[exit 1]');
  });

  it('run asks y/n before a tool call that needs approval, and goes on after y', async () => {
    const terminal = await open(['run', 'add 6 and 7', '--agent', 'careful'], env());
    await terminal.waitFor(/Allow add\(\{"a":6,"b":7\}\)\? \[y\/n\]/);
    await terminal.type('y');
    const screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/✓ add was approved/);
    expect(screen).toMatch(/^The sum is 13\.$/m);
    expect(screen).toContain('[exit 0]');
  });

  it('NO_COLOR=1 on a terminal: no colour anywhere, even with FORCE_COLOR set too (no-color.org)', async () => {
    const coloured = await open(['run', 'please add 2 and 3'], env());
    await coloured.waitFor(/\[exit \d+\]/);
    // Not vacuous: the same run on the same terminal without NO_COLOR is coloured (the green ✓).
    expect(await coloured.screen({ escapes: true })).toMatch(SGR);

    const terminal = await open(['run', 'please add 2 and 3'], { ...env(), NO_COLOR: '1', FORCE_COLOR: '1' });
    const screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/✓ add \d+ ms/);
    expect(await terminal.screen({ escapes: true })).not.toMatch(SGR);
  });

  it('piped output has no escape codes: only the answer goes down the pipe', async () => {
    const terminal = await open(['run', 'please add 20 and 22'], env(), '| cat -v');
    const screen = await terminal.waitFor(/\[exit \d+\]/);
    expect(screen).toMatch(/^The sum is 42\.$/m);
    expect(screen).not.toContain('^['); // cat -v shows an escape as ^[
  });

  it('chat: turns stream, /history prints them, /exit keeps the session and --session resumes it', async () => {
    const environment = env();
    const session = `tty-${randomUUID().slice(0, 8)}`;
    const chat = await open(['chat', '--session', session], environment);
    await chat.waitFor(/you›\s*$/m);
    await chat.type('hello there');
    await chat.waitFor(/^You said: hello there$/m);
    await chat.type('please add 1 and 2');
    await chat.waitFor(/^The sum is 3\.$/m);
    // A turn that would take a minute, cancelled: the session goes on.
    await chat.type('slow thoughts');
    await chat.waitFor(/step 1: thinking/);
    await chat.type('/cancel');
    await chat.waitFor(/^\(cancelled\)$|cancelled in the chat/m);
    await chat.type('/history');
    const history = await chat.waitFor(/agent: The sum is 3\./);
    expect(history).not.toMatch(/agent: You said: slow/);
    expect(history).toMatch(
      /you: hello there\nagent: You said: hello there\nyou: please add 1 and 2\n {2}tool: 3\nagent: The sum is 3\./,
    );
    await chat.type('/exit');
    const left = await chat.waitFor(/\[exit \d+\]/);
    expect(left).toContain(`resume it with \`toolkit-agent chat --session ${session}\``);
    expect(left).toContain('[exit 0]');

    const resumed = await open(['chat', '--session', session], environment);
    await resumed.waitFor(/you›\s*$/m);
    await resumed.type('/history');
    await resumed.waitFor(/agent: The sum is 3\./);
    await resumed.type('please add 5 and 5');
    await resumed.waitFor(/^The sum is 10\.$/m);
    await resumed.send('C-c'); // at the prompt, Ctrl-C leaves
    expect(await resumed.waitFor(/\[exit \d+\]/)).toContain('[exit 0]');
  });
});
