import { createServer } from 'node:http';
import type { Command } from 'commander';
import { credentialStoreOf, loadConfig } from './config.ts';
import { connect, type ConnectOptions } from './connect.ts';
import { CliError, note, paint, printJson } from './output.ts';
import { withTargetOptions } from './target.ts';
import { listen } from './listen.ts';
import { untilSignal } from './until-signal.ts';

export function registerTriggers(program: Command): void {
  const triggers = program.command('triggers').description("The config's webhook triggers");
  withTargetOptions(
    triggers
      .command('serve')
      .description(
        "Serve the config's triggers at POST /<name> until Ctrl-C (runs start on the config's task queue)",
      ),
  )
    .option('-p, --port <port>', 'port', '8787')
    .option('--host <host>', 'address to listen on', '0.0.0.0')
    .option('--json', 'print the address and triggers as one JSON line')
    .action(async (opts: ConnectOptions & { port: string; host: string }, cmd: Command) => {
      const loaded = await loadConfig(cmd.optsWithGlobals<{ config?: string }>().config);
      const list = loaded.config.triggers ?? [];
      if (list.length === 0) {
        throw new CliError('The config has no triggers: add them under `triggers` (see docs/triggers.md).');
      }
      const { createTriggerHandler } = await import('../triggers/handler.ts');
      const { toNodeListener } = await import('../triggers/node-listener.ts');
      const { agents } = await connect(opts, cmd);
      const handler = createTriggerHandler({
        client: agents,
        triggers: list,
        credentialStore: credentialStoreOf(loaded.config),
        log: note,
      });
      const server = createServer(toNodeListener(handler));
      const port = await listen(server, Number(opts.port), opts.host, 'The trigger server');
      const names = list.map((trigger) => trigger.name);
      if (opts.json) printJson({ port, triggers: names });
      else {
        for (const name of names)
          process.stdout.write(`POST ${paint('cyan', `http://${opts.host}:${port}/${name}`)}\n`);
        note(
          'Verifying each delivery with its signing secret from the credential store. Press Ctrl-C to stop.',
        );
      }
      await untilSignal();
      server.close();
      await agents.close();
    });
}
