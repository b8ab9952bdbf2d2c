import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listen } from '../../src/cli/listen.ts';
import { CliError } from '../../src/cli/output.ts';

describe('a CLI server listening', () => {
  it('answers the port it got, and names the server and address when the port is taken', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await once(holder, 'listening');
    const taken = (holder.address() as AddressInfo).port;
    try {
      const free = createServer();
      const port = await listen(free, 0, '127.0.0.1', 'The test server');
      expect(port).toBeGreaterThan(0);
      free.close();
      const error = await listen(createServer(), taken, '127.0.0.1', 'The test server').catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(CliError);
      expect((error as Error).message).toMatch(
        new RegExp(`^The test server could not listen on 127\\.0\\.0\\.1:${taken}: listen EADDRINUSE`),
      );
    } finally {
      holder.close();
    }
  });
});
