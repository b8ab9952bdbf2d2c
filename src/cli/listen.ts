import type { AddressInfo, Server } from 'node:net';
import { CliError } from './output.ts';

/**
 * Listens on `host:port` (0: a free port) and answers the port; an address that cannot be had (in
 * use, not allowed) is a CliError naming `what` and the address.
 */
export function listen(server: Server, port: number, host: string, what: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error) =>
      reject(new CliError(`${what} could not listen on ${host}:${port}: ${error.message}`)),
    );
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/** A commander option parser for a repeatable option: each use adds its value. */
export const repeatable = (value: string, previous: string[] = []): string[] => [...previous, value];
