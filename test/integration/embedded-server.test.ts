import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';
import { acquireEmbeddedServer, EmbeddedTemporalServer } from '../../src/embedded/dev-server.ts';
import { startNodeProcess } from './processes.ts';

function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Polls until the port refuses connections (a process ending has no event we can await from here). */
async function waitUntilClosed(address: string, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await accepts(address))) return true;
    await sleep(100);
  }
  return false;
}

describe('the embedded Temporal server', () => {
  it('refuses a port another server already holds, instead of answering with that server', async () => {
    const taken = inject('temporalAddress');
    const port = Number(taken.split(':')[1]);
    await expect(EmbeddedTemporalServer.start({ port })).rejects.toThrow(
      `Port ${port} on 127.0.0.1 is already in use (another Temporal server?)`,
    );
  });

  it('reports a server that stops while starting with its own error, and tries once more', async () => {
    const lines: string[] = [];
    // The start timeout is far above the test's: a start that waited for it would fail the test.
    const starting = EmbeddedTemporalServer.start({
      dbFilename: '/nonexistent/folder/temporal.db',
      startTimeoutMs: 600_000,
      log: (line) => lines.push(line),
    });
    await expect(starting).rejects.toThrow(
      /temporal server start-dev exited with 1:\n.*failed checking dir for database file/,
    );
    expect(lines.filter((line) => line.includes('stopped while starting; starting it again'))).toHaveLength(
      1,
    );
  }, 30_000);

  it('is shared within a process and stops when its last user releases it', async () => {
    const first = await acquireEmbeddedServer();
    const second = await acquireEmbeddedServer();
    expect(second.server).toBe(first.server);
    expect(first.server.address).toMatch(/^127\.0\.0\.1:\d+$/);

    const connection = await Connection.connect({ address: first.server.address });
    const info = await connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toMatch(/^\d+\.\d+/);
    await connection.close();

    await first.release();
    expect(await accepts(first.server.address)).toBe(true);
    await second.release();
    // close() resolves once the server process has exited.
    expect(await accepts(first.server.address)).toBe(false);
  });

  it('does not outlive a process that is killed with SIGKILL', async () => {
    const owner = startNodeProcess('test/fixtures/embedded-server-process.ts', {});
    const address = (await owner.waitForLine(/^ADDRESS /)).replace('ADDRESS ', '');
    expect(await accepts(address)).toBe(true);
    owner.child.kill('SIGKILL');
    await owner.exited;
    expect(await waitUntilClosed(address)).toBe(true);
  });
});
