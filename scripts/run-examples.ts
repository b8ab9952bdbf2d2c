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
 * EXAMPLES_TIMEOUT_MS sets how long one example may take (default 180,000); EXAMPLES_DIR runs
 * another folder's examples (the runner's own test).
 */
import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const examplesDir = process.env.EXAMPLES_DIR ?? join(root, 'examples');
const timeoutMs = Number(process.env.EXAMPLES_TIMEOUT_MS ?? 180_000);
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

/** Runs one example; resolves with why it failed, or undefined when it exited 0 in time. */
function runExample(file: string, tags: ExampleTags, keepKeys: boolean): Promise<string | undefined> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => keepKeys || !UNSET.test(name)),
  );
  // Its own process group, so a timeout also stops what it started (the Temporal server, MCP servers).
  const child = spawn(process.execPath, [file, ...tags.args], {
    cwd: root,
    env,
    stdio: ['pipe', 'inherit', 'inherit'],
    detached: true,
  });
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
    child.on('error', (error) => resolve(`it could not start: ${error.message}`));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      // Whatever it left running (a server it forgot to stop) goes with it.
      killGroup('SIGKILL');
      if (timedOut) resolve(`it did not end within ${timeoutMs / 1000} s (EXAMPLES_TIMEOUT_MS)`);
      else if (code !== 0) resolve(`it exited with ${signal ?? `code ${code}`}`);
      else resolve(undefined);
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
  for (const name of files) {
    const file = relative(root, join(examplesDir, name));
    const tags = exampleTags(await readFile(join(examplesDir, name), 'utf8'));
    if (tags.skip) {
      console.log(`\n- ${file}: skipped (${tags.skip})`);
      skipped += 1;
      continue;
    }
    console.log(`\n▶ ${file}${tags.args.length ? ` ${tags.args.join(' ')}` : ''}`);
    const started = performance.now();
    const why = await runExample(file, tags, keepKeys);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (why) {
      console.error(`✗ ${file} failed after ${seconds} s: ${why}.`);
      failed.push(`${file}: ${why}`);
    } else {
      console.log(`✓ ${file} (${seconds} s)`);
    }
  }
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
