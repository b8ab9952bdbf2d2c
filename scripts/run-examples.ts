/**
 * Runs every example (the top-level `examples/*.ts`; helper modules and data live in subfolders) as
 * a user would, `node examples/<name>.ts`, one at a time, with the provider keys and Google's client
 * unset so each runs on its ScriptedModel and stand-ins, and fails naming each example that failed
 * or hung. Needs `npm run build` first (examples import 'toolkit-agent' as a user does).
 *
 *   npm run examples                       # all of them
 *   npm run examples -- sub-agents mcp     # those whose file name contains one of the words
 *   npm run examples -- --keep-keys        # with the provider keys of your environment
 *
 * An example says in its header comment what CI needs beyond that, one tag a line:
 *   `@ci-stdin <text>`  typed on its stdin (`\n` is a newline), e.g. the answer to a y/n question
 *   `@ci-args <args>`   command-line arguments (split on spaces)
 *   `@ci-skip <reason>` not run here (the reason is printed), e.g. when another CI step runs it
 * Two run at a time (EXAMPLES_CONCURRENCY), each on its own embedded server: an example's output is
 * printed whole when it ends, so the two never interleave. EXAMPLES_TIMEOUT_MS sets how long one
 * example may take (default 180,000); EXAMPLES_DIR runs another folder's examples (the runner's own test).
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const examplesDir = process.env.EXAMPLES_DIR ?? join(root, 'examples');
const timeoutMs = Number(process.env.EXAMPLES_TIMEOUT_MS ?? 180_000);
const concurrency = Math.max(1, Number(process.env.EXAMPLES_CONCURRENCY ?? 2));
const UNSET = /^(ANTHROPIC_API_KEY|OPENAI_API_KEY|GOOGLE_CLIENT_.*)$/;

/** What an example's header asks of CI. */
export interface ExampleTags {
  stdin?: string;
  args: string[];
  skip?: string;
}

/** Reads the `@ci-*` tags of an example's source. */
export function exampleTags(source: string): ExampleTags {
  const tag = (name: string) =>
    new RegExp(`(?:^|\\s)@ci-${name}\\s+(.+?)\\s*(?:\\*/)?$`, 'm').exec(source)?.[1];
  const stdin = tag('stdin')?.replace(/\\n/g, '\n');
  const skip = tag('skip');
  return {
    args: tag('args')?.split(/\s+/) ?? [],
    ...(stdin === undefined ? {} : { stdin }),
    ...(skip === undefined ? {} : { skip }),
  };
}

/** Runs one example; resolves with its output and why it failed (undefined when it exited 0 in time). */
function runExample(
  file: string,
  tags: ExampleTags,
  keepKeys: boolean,
): Promise<{ output: string; why: string | undefined }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => keepKeys || !UNSET.test(name)),
  );
  // Its own process group, so a timeout also stops what it started (the Temporal server, MCP servers).
  const child = spawn(process.execPath, [file, ...tags.args], {
    cwd: root,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  child.stdin.on('error', () => undefined); // an example that never reads its stdin
  child.stdin.end(tags.stdin ?? '');
  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), 5_000).unref();
  }, timeoutMs);
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ output, why: `it could not start: ${error.message}` }));
    // 'close', not 'exit': the output is whole once its pipes are.
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // Whatever it left running (a server it forgot to stop) goes with it.
      killGroup('SIGKILL');
      const why = timedOut
        ? `it did not end within ${timeoutMs / 1000} s (EXAMPLES_TIMEOUT_MS)`
        : code !== 0
          ? `it exited with ${signal ?? `code ${code}`}`
          : undefined;
      resolve({ output, why });
    });
  });
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const keepKeys = argv.includes('--keep-keys');
  const words = argv.filter((arg) => !arg.startsWith('--'));
  const files = (await readdir(examplesDir, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => entry.name)
    .filter((name) => !words.length || words.some((word) => name.includes(word)))
    .sort();
  if (!files.length) throw new Error(`No example matches ${words.join(', ')} in ${examplesDir}.`);
  const failed: string[] = [];
  let skipped = 0;
  const queue = [...files];
  const next = async (): Promise<void> => {
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
      const file = relative(root, join(examplesDir, name));
      const tags = exampleTags(await readFile(join(examplesDir, name), 'utf8'));
      if (tags.skip) {
        console.log(`\n- ${file}: skipped (${tags.skip})`);
        skipped += 1;
        continue;
      }
      const started = performance.now();
      const { output, why } = await runExample(file, tags, keepKeys);
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(`\n▶ ${file}${tags.args.length ? ` ${tags.args.join(' ')}` : ''}`);
      process.stdout.write(output);
      if (why) {
        console.error(`✗ ${file} failed after ${seconds} s: ${why}.`);
        failed.push(`${file}: ${why}`);
      } else {
        console.log(`✓ ${file} (${seconds} s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, next));
  if (failed.length) {
    console.error(`\n${failed.length} of ${files.length} examples failed:\n  ${failed.join('\n  ')}`);
    process.exitCode = 1;
  } else {
    console.log(
      `\n${files.length - skipped} examples passed${skipped ? `, ${skipped} skipped (said why above)` : ''}.`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
