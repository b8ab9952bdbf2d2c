import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import type { DriveSuiteService } from '../oauth/drive-suite.ts';
import type { OAuthHelper } from '../oauth/helper.ts';
import { credentialStoreOf, loadOptionalConfig } from './config.ts';
import type { CliOAuthClient } from './config-types.ts';
import { CliError, paint, printJson, UsageError } from './output.ts';
import { wakeWaitingRuns } from './wake-runs.ts';

interface AuthOptions {
  clientId?: string;
  port: string;
  tenant?: string;
  open: boolean;
  json?: boolean;
}

/** The OAuth client: the config's, with id and secret from the environment when it has none. */
function clientFor(
  service: 'google' | 'slack',
  fromConfig: CliOAuthClient | undefined,
  opts: AuthOptions,
): Required<Pick<CliOAuthClient, 'client_id' | 'client_secret' | 'redirect_uri'>> & CliOAuthClient {
  const prefix = service.toUpperCase();
  const client_id = opts.clientId ?? fromConfig?.client_id ?? process.env[`${prefix}_CLIENT_ID`];
  const client_secret = fromConfig?.client_secret ?? process.env[`${prefix}_CLIENT_SECRET`];
  if (!client_id || !client_secret) {
    throw new CliError(
      `No ${service} OAuth client: set ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET, or oauth.${service} in the config.`,
    );
  }
  const redirect_uri = fromConfig?.redirect_uri ?? `http://127.0.0.1:${opts.port}/callback`;
  return { ...fromConfig, client_id, client_secret, redirect_uri };
}

/** Prints the URL (to standard error, or as JSON) and opens a browser when there is a desktop. */
function show(url: string, opts: AuthOptions): void {
  if (opts.json) printJson({ url });
  else process.stderr.write(`Open this URL to authorize:\n  ${paint('cyan', url, process.stderr)}\n`);
  const desktop = process.env.DISPLAY || process.env.WAYLAND_DISPLAY || process.platform === 'darwin';
  if (!opts.open || !desktop || !process.stdout.isTTY) return;
  const opener = process.platform === 'darwin' ? 'open' : 'xdg-open';
  spawn(opener, [url], { stdio: 'ignore', detached: true })
    .on('error', () => undefined)
    .unref();
}

async function login(helper: OAuthHelper, names: string[], opts: AuthOptions, cmd: Command): Promise<void> {
  const { loopbackLogin } = await import('../oauth/loopback-login.ts');
  await loopbackLogin(helper, { open: (url) => show(url, opts) });
  // Runs waiting for these keys (mid-run authorization) go on now.
  const wake = await wakeWaitingRuns(cmd, opts.tenant, names);
  if (opts.json)
    return printJson({
      stored: names,
      ...(opts.tenant ? { tenant: opts.tenant } : {}),
      ...('woken' in wake ? { woken_runs: wake.woken } : {}),
    });
  process.stdout.write(`${paint('green', '✓')} logged in; stored ${names.join(', ')}\n`);
  if ('woken' in wake && wake.woken)
    process.stdout.write(`${paint('green', '✓')} ${wake.woken} waiting run(s) resume\n`);
}

function withLoginOptions(command: Command): Command {
  return command
    .option('--client-id <id>', 'the OAuth client id (default: the config or <SERVICE>_CLIENT_ID)')
    .option('--port <port>', 'the loopback port of the redirect URI', '8976')
    .option('--tenant <tenant>', 'store the tokens for one end user')
    .option('--no-open', 'do not open a browser')
    .option('--json', 'print the URL and the result as JSON lines');
}

export function registerAuth(program: Command): void {
  const auth = program
    .command('auth')
    .description('Log in with OAuth in a browser (loopback redirect) and store the tokens');

  withLoginOptions(auth.command('google').description('Google: mail, file_drive and calendar'))
    .option('--services <list>', 'comma-separated: mail,file_drive,calendar', 'mail,file_drive,calendar')
    .action(async (opts: AuthOptions & { services: string }, cmd: Command) => {
      const services = opts.services.split(',').map((s) => s.trim()) as DriveSuiteService[];
      const [{ DRIVE_SUITE_SCOPES, DriveSuiteOAuthHelper }, { InMemoryOAuthStateStore }] = await Promise.all([
        import('../oauth/drive-suite.ts'),
        import('../oauth/state-store.ts'),
      ]);
      const unknown = services.filter((s) => !(s in DRIVE_SUITE_SCOPES));
      if (unknown.length)
        throw new UsageError(`Unknown service ${unknown.join(', ')}; use mail, file_drive, calendar.`);
      const config = (await loadOptionalConfig(cmd.optsWithGlobals<{ config?: string }>().config))?.config;
      const client = clientFor('google', config?.oauth?.google, opts);
      const helper = new DriveSuiteOAuthHelper({
        config: { ...client, scopes: client.scopes ?? [] },
        services,
        credentialStore: credentialStoreOf(config),
        stateStore: new InMemoryOAuthStateStore(),
        ...(client.endpoints ? { endpoints: client.endpoints } : {}),
        ...(opts.tenant ? { tenant: opts.tenant } : {}),
      });
      await login(helper, services, opts, cmd);
    });

  withLoginOptions(
    auth.command('slack').description('Slack: the chat connector (bot and search scopes)'),
  ).action(async (opts: AuthOptions, cmd: Command) => {
    const config = (await loadOptionalConfig(cmd.optsWithGlobals<{ config?: string }>().config))?.config;
    const client = clientFor('slack', config?.oauth?.slack, opts);
    const [{ ChatOAuthHelper }, { InMemoryOAuthStateStore }] = await Promise.all([
      import('../oauth/chat.ts'),
      import('../oauth/state-store.ts'),
    ]);
    const helper = new ChatOAuthHelper({
      config: { ...client, scopes: client.scopes ?? [] },
      credentialStore: credentialStoreOf(config),
      stateStore: new InMemoryOAuthStateStore(),
      ...(client.endpoints ? { endpoints: client.endpoints } : {}),
      ...(opts.tenant ? { tenant: opts.tenant } : {}),
    });
    await login(helper, ['chat'], opts, cmd);
  });
}
