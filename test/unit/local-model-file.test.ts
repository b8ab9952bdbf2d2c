import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.ts';
import { findLocalModel } from '../../src/models/local-model-file.ts';

describe('findLocalModel and TOOLKIT_AGENT_LOCAL_MODEL', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'toolkit-agent-model-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('uses the file it names', async () => {
    const file = join(dir, 'mine.gguf');
    await writeFile(file, 'GGUF');
    expect(await findLocalModel({ env: { TOOLKIT_AGENT_LOCAL_MODEL: file } })).toBe(file);
  });

  it('says the file it names does not exist, and what to do, instead of offering a download', async () => {
    const missing = join(dir, 'typo.gguf');
    const error = await findLocalModel({ env: { TOOLKIT_AGENT_LOCAL_MODEL: missing }, install: true }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      `TOOLKIT_AGENT_LOCAL_MODEL is ${missing}, which does not exist: point it at a GGUF file, or unset it ` +
        'to use the default offline model (`toolkit-agent model pull` fetches it).',
    );
  });
});
