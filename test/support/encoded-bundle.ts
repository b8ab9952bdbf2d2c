import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAgentWorkflowBundle } from '../../src/workflow-bundle.ts';

let building: Promise<string> | undefined;

/**
 * The workflows bundled for encrypted workers (failure text encoded), written once per test file
 * to a file of its own: what a worker or the CLI given `encryption` needs as its bundle. The shared
 * bundle of the test run encodes nothing.
 */
export function encodedBundlePath(): Promise<string> {
  building ??= (async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'encoded-bundle-')), 'workflow-bundle.cjs');
    await writeFile(path, (await buildAgentWorkflowBundle({ encodeFailures: true })).code);
    return path;
  })();
  return building;
}
