import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { credentialStoreOf, loadConfig } from './config.ts';
import { listen } from './listen.ts';
import { note, paint, printJson, UsageError } from './output.ts';
import { readServerState, targetOf, withTargetOptions, type TargetOptions } from './target.ts';
import { untilSignal } from './until-signal.ts';

interface StudioCliOptions extends TargetOptions {
  port: string;
  host: string;
  worker: boolean;
  evals: string;
  temporalUi?: string;
  json?: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * `toolkit-agent studio`: the studio page (`createStudio`) on 127.0.0.1, over the config's agents
 * and cluster, with their worker in this process as `eval` runs it (`--no-worker` when one runs elsewhere).
 */
export function registerStudio(program: Command): void {
  withTargetOptions(
    program
      .command('studio')
      .description("A local web page of the config's agents: chat, runs, approvals, cost, evals and memory"),
  )
    .option('-p, --port <port>', 'HTTP port (0 picks a free one)', '4400')
    .option('--host <host>', 'address to listen on (anything but loopback needs a token)', '127.0.0.1')
    .option('--no-worker', 'do not serve the agents in this process (a `toolkit-agent worker` does)')
    .option(
      '--evals <folder>',
      'the folder of saved eval reports (eval ... --json > evals/<name>.json)',
      'evals',
    )
    .option('--temporal-ui <url>', 'the Temporal UI the runs link to (default: the running server’s)')
    .option('--json', 'print the URL as one JSON line')
    .addHelpText(
      'after',
      '\nOn another address than 127.0.0.1 every request needs a token: TOOLKIT_AGENT_STUDIO_TOKEN, or one\nmade up at start; the printed URL carries it (#token=...).',
    )
    .action(async (opts: StudioCliOptions, cmd: Command) => {
      const portNumber = Number(opts.port);
      if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535)
        throw new UsageError(`--port takes a port from 0 to 65535 (0: any free one); got "${opts.port}".`);
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      const { serve } = await import('./serving.ts');
      const { createStudio, toNodeListener } = await import('../studio/index.ts');
      const { usageStoreFollowing } = await import('../usage/default-store.ts');
      const serving = await serve(loaded, { ...targetOf(opts), worker: opts.worker, temporary: true });
      const closing: Array<() => Promise<unknown>> = [() => serving.close()];
      try {
        const token =
          process.env.TOOLKIT_AGENT_STUDIO_TOKEN ||
          (LOOPBACK.has(opts.host) ? undefined : randomBytes(24).toString('base64url'));
        const config = loaded.config;
        const credentialStore = credentialStoreOf(config);
        // The ledger `toolkit-agent usage` reads: the config's, else the one beside its memory store.
        const usageStore = config.usageStore ?? usageStoreFollowing(config.memoryStore);
        if (!config.usageStore) closing.push(async () => usageStore.close?.());
        const uiUrl =
          opts.temporalUi ??
          (serving.target.source === 'server' ? (await readServerState())?.uiUrl : undefined);
        const studio = createStudio({
          client: serving.agents,
          agents: Object.fromEntries(
            Object.entries(config.agents).map(([name, agent]) => [
              name,
              { ...agent, credentialStore: agent.credentialStore ?? credentialStore },
            ]),
          ),
          ...(token ? { token } : {}),
          usage: {
            store: usageStore,
            ...(config.pricing ? { pricing: config.pricing } : {}),
            ...(config.quotas ? { quotas: config.quotas } : {}),
          },
          evalsFolder: resolve(opts.evals),
          ...(uiUrl ? { temporalUiUrl: uiUrl } : {}),
          namespace: serving.target.namespace,
          memoryStore: serving.memoryStore,
        });
        const server = createServer(toNodeListener(studio));
        const port = await listen(server, portNumber, opts.host, 'The studio');
        const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
        const url = `http://${host}:${port}/${token ? `#token=${token}` : ''}`;
        if (opts.json) printJson({ url });
        else {
          process.stdout.write(`Studio at ${paint('cyan', url)}\n`);
          note('Press Ctrl-C to stop.');
        }
        await Promise.race([untilSignal(), serving.running]);
        server.closeAllConnections();
        server.close();
      } finally {
        for (const close of closing.reverse()) await close();
      }
    });
}
