import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

const ROOT = new URL('../..', import.meta.url).pathname;

export interface NodeProcess {
  child: ChildProcess;
  /** Every stdout line so far. */
  lines: string[];
  /** Resolves with the first line matching, as soon as it is printed. */
  waitForLine(pattern: RegExp): Promise<string>;
  exited: Promise<number | null>;
  /** Everything written to stderr so far. */
  stderr(): string;
}

/** Runs a TypeScript fixture with this Node (type stripping), collecting its output lines. */
export function startNodeProcess(script: string, env: Record<string, string>): NodeProcess {
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    for (const waiter of waiters.filter((w) => w.pattern.test(line))) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(line);
    }
  });
  return {
    child,
    lines,
    exited,
    stderr: () => stderr,
    waitForLine(pattern) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then((code) =>
          reject(new Error(`${script} exited (${code}) before printing ${pattern}:\n${stderr.slice(-3000)}`)),
        );
      });
    },
  };
}

/**
 * The `serve` worker fixture (an `adder` agent) and the client fixture asking it "What is 2 + 3?",
 * both in processes of their own with `env`; resolves once the client printed its result and exited.
 */
export async function runAdderInProcesses(
  env: Record<string, string>,
  opts: { workflowBundle: string; memoryDb: string; processes: NodeProcess[] },
): Promise<{ worker: NodeProcess; client: NodeProcess }> {
  const worker = startNodeProcess('test/fixtures/worker-process.ts', {
    ...env,
    MODE: 'serve',
    WORKFLOW_BUNDLE: opts.workflowBundle,
    MEMORY_DB: opts.memoryDb,
  });
  opts.processes.push(worker);
  await worker.waitForLine(/^READY$/);
  const client = startNodeProcess('test/fixtures/client-process.ts', {
    ...env,
    AGENT: 'adder',
    PROMPT: 'What is 2 + 3?',
  });
  opts.processes.push(client);
  await client.waitForLine(/"result"/);
  await client.exited;
  return { worker, client };
}
