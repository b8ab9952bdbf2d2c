import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.ts';
import { defaultLocalThreads } from '../../src/models/local-llama.ts';

describe('the offline model threads and TOOLKIT_AGENT_LOCAL_THREADS', () => {
  it('uses the number it gives, else every core', () => {
    expect(defaultLocalThreads({ TOOLKIT_AGENT_LOCAL_THREADS: '1' })).toBe(1);
    expect(defaultLocalThreads({ TOOLKIT_AGENT_LOCAL_THREADS: '3' })).toBe(3);
    expect(defaultLocalThreads({})).toBe(availableParallelism());
    expect(defaultLocalThreads({ TOOLKIT_AGENT_LOCAL_THREADS: '' })).toBe(availableParallelism());
  });

  it.each(['0', '-2', '1.5', 'two'])('refuses %j, naming the variable and what it takes', (given) => {
    const refuse = () => defaultLocalThreads({ TOOLKIT_AGENT_LOCAL_THREADS: given });
    expect(refuse).toThrow(ConfigurationError);
    expect(refuse).toThrow(
      `TOOLKIT_AGENT_LOCAL_THREADS is the offline model's CPU threads, a whole number of at least 1; got "${given}".`,
    );
  });
});
