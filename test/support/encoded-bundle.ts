import { existsSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inject } from 'vitest';
import { buildAgentWorkflowBundle } from '../../src/workflow-bundle.ts';

let building: Promise<string> | undefined;

/**
 * The workflows bundled for encrypted workers (failure text encoded): what a worker or the CLI
 * given `encryption` needs as its bundle. Built once per test run, by the first file that asks, into
 * the run's own folder (a file that finds it there takes it as it is); the shared bundle of the test
 * run encodes nothing.
 */
export function encodedBundlePath(): Promise<string> {
  building ??= (async () => {
    const path = join(inject('testRunDir'), 'workflow-bundle-encoded.cjs');
    if (existsSync(path)) return path;
    const code = (await buildAgentWorkflowBundle({ encodeFailures: true })).code;
    // Written whole or not at all: a file running beside this one never reads half a bundle.
    const partial = `${path}.${process.pid}`;
    await writeFile(partial, code);
    await rename(partial, path);
    return path;
  })();
  return building;
}
