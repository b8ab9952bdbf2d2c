import type { Command } from 'commander';
import type { PayloadEncryptionOptions } from '../codec/key-ring.ts';
import { loadOptionalConfig } from './config.ts';
import { CliError, note, paint, printJson } from './output.ts';
import { listen, repeatable } from './listen.ts';
import { untilSignal } from './until-signal.ts';

/** A codec server for a Temporal UI, listening. */
export interface RunningCodecServer {
  /** `http://127.0.0.1:<port>`: what `--ui-codec-endpoint` (or the UI's Codec Server setting) takes. */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the codec server for a UI that sends no credentials (a local UI over http): it allows the
 * UI's origins for the given namespaces, and listens on `host` (loopback unless told otherwise).
 */
export async function startCodecServer(options: {
  encryption: PayloadEncryptionOptions;
  origins: string[];
  namespaces: string[];
  port?: number;
  host?: string;
}): Promise<RunningCodecServer> {
  const { createCodecServer } = await import('../codec/codec-server.ts');
  const { authorizeUiOrigin } = await import('../codec/ui-authorization.ts');
  const server = createCodecServer({
    keys: options.encryption.keys,
    currentKeyId: options.encryption.currentKeyId,
    allowedOrigins: options.origins,
    authorize: authorizeUiOrigin({ origins: options.origins, namespaces: options.namespaces }),
  });
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host, 'The codec server');
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The payload keys of the config (`encryption`) or of `TOOLKIT_PAYLOAD_KEYS`, if any. */
export async function configuredEncryption(
  configPath?: string,
): Promise<PayloadEncryptionOptions | undefined> {
  const { resolveEncryption } = await import('../codec/key-ring.ts');
  const loaded = await loadOptionalConfig(configPath);
  return resolveEncryption(loaded?.config.encryption);
}

/** Both spellings of a local UI's origin: the browser sends the one in the address bar. */
export function localUiOrigins(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
}

export function registerCodec(program: Command): void {
  const codec = program
    .command('codec')
    .description('The codec server that lets a Temporal UI read encrypted runs');
  codec
    .command('serve')
    .description(
      "Serve the config's payload keys to a Temporal UI (for a cluster's UI; `server` starts one itself)",
    )
    .option('-p, --port <port>', 'port', '8888')
    .option(
      '--host <host>',
      'address to listen on (keep loopback unless a proxy with logins is in front)',
      '127.0.0.1',
    )
    .option('--origin <url...>', "the UI's origin (repeatable)", repeatable)
    .option('--namespace <ns...>', 'a namespace the UI may decode (repeatable)', repeatable)
    .option('--json', 'print the endpoint as one JSON line')
    .action(
      async (
        opts: { port: string; host: string; origin?: string[]; namespace?: string[]; json?: boolean },
        cmd: Command,
      ) => {
        const encryption = await configuredEncryption(cmd.optsWithGlobals<{ config?: string }>().config);
        if (!encryption) {
          throw new CliError(
            'No payload keys: set `encryption` in toolkit-agent.config.ts or TOOLKIT_PAYLOAD_KEYS (id:base64key).',
          );
        }
        const origins = opts.origin ?? localUiOrigins(8233);
        const namespaces = opts.namespace ?? ['default'];
        const server = await startCodecServer({
          encryption,
          origins,
          namespaces,
          port: Number(opts.port),
          host: opts.host,
        });
        if (opts.json) printJson({ codecEndpoint: server.url, origins, namespaces });
        else {
          process.stdout.write(`Codec endpoint   ${paint('cyan', server.url)}\n`);
          note(
            `Allows ${origins.join(', ')} for namespace ${namespaces.join(', ')}. In the UI: Settings → Codec Server → ${server.url}. Press Ctrl-C to stop.`,
          );
        }
        await untilSignal();
        await server.close();
      },
    );
}
