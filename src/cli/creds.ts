import type { Command } from 'commander';
import { CREDENTIAL_TYPES, type CredentialRecord, type CredentialType } from '../credentials/types.ts';
import { credentialStoreFor } from './config.ts';
import { CliError, paint, printJson, printTable, UsageError } from './output.ts';
import { readSecret } from './secret-input.ts';

/** What `creds list` shows of a record: never a secret. */
export interface CredentialSummary {
  name: string;
  type: CredentialType;
  expires_at: string | null;
  /** `ok`, `expired` (no refresh token), `refreshable` (expired, renewed on next use) or `needs_reauth`. */
  status: 'ok' | 'expired' | 'refreshable' | 'needs_reauth';
}

/** Summarises a record without its token, refresh token or secret metadata. */
export function summarize(record: CredentialRecord, now = Date.now()): CredentialSummary {
  const metadata = record.metadata ?? {};
  const expires = typeof metadata.expires_at === 'string' ? metadata.expires_at : null;
  let status: CredentialSummary['status'] = 'ok';
  if (metadata.needs_reauth === true || metadata.status === 'needs_reauth') status = 'needs_reauth';
  else if (expires && Date.parse(expires) <= now) status = record.refresh_token ? 'refreshable' : 'expired';
  return { name: record.name, type: record.type, expires_at: expires, status };
}

/** `key=value` pairs into metadata (values stay strings). */
function parseMeta(pairs: string[]): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--meta takes key=value, got ${JSON.stringify(pair)}.`);
    metadata[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return metadata;
}

export function registerCreds(program: Command): void {
  const creds = program
    .command('creds')
    .description(
      'Store, list and remove credentials (secrets are never shown or taken from the command line)',
    );

  creds
    .command('set <name>')
    .description('Store a credential; the secret is read from a hidden prompt or standard input')
    .option('-t, --type <type>', `one of ${CREDENTIAL_TYPES.join(', ')}`, 'bearer')
    .option('--tenant <tenant>', 'store it for one end user')
    .option('-m, --meta <key=value...>', 'metadata, e.g. base_url=https://api.example.com', [])
    .option('--json', 'print the stored summary as JSON')
    .addHelpText(
      'after',
      '\nExample:\n  printf %s "$API_TOKEN" | toolkit-agent creds set custom_api --meta base_url=https://api.example.com',
    )
    .action(
      async (
        name: string,
        opts: { type: string; tenant?: string; meta: string[]; json?: boolean },
        cmd: Command,
      ) => {
        if (!CREDENTIAL_TYPES.includes(opts.type as CredentialType)) {
          throw new UsageError(`--type must be one of ${CREDENTIAL_TYPES.join(', ')}; got ${opts.type}.`);
        }
        const metadata = parseMeta(opts.meta);
        const store = await credentialStoreFor(cmd.optsWithGlobals<{ config?: string }>().config);
        const token = opts.type === 'none' ? '' : await readSecret(`Secret for ${name} (hidden): `);
        const record: CredentialRecord = {
          name,
          type: opts.type as CredentialType,
          token,
          ...(Object.keys(metadata).length ? { metadata } : {}),
        };
        await store.put(record, { tenant: opts.tenant });
        if (opts.json) printJson(summarize(record));
        else process.stdout.write(`${paint('green', '✓')} stored ${name} (${opts.type})\n`);
      },
    );

  creds
    .command('list')
    .description('List credentials: names, types, expiry and status, never secrets')
    .option('--tenant <tenant>', "one end user's credentials")
    .option('--json', 'print a JSON array')
    .action(async (opts: { tenant?: string; json?: boolean }, cmd: Command) => {
      const store = await credentialStoreFor(cmd.optsWithGlobals<{ config?: string }>().config);
      const summaries: CredentialSummary[] = [];
      for (const name of await store.list({ tenant: opts.tenant })) {
        const record = await store.get(name, { tenant: opts.tenant });
        if (record) summaries.push(summarize(record));
      }
      if (opts.json) return printJson(summaries);
      if (!summaries.length) return void process.stdout.write('No credentials stored.\n');
      printTable(
        ['NAME', 'TYPE', 'EXPIRES', 'STATUS'],
        summaries.map((s) => [s.name, s.type, s.expires_at ?? '-', s.status]),
      );
    });

  creds
    .command('rm <name>')
    .description('Remove a credential')
    .option('--tenant <tenant>', "one end user's credential")
    .action(async (name: string, opts: { tenant?: string }, cmd: Command) => {
      const store = await credentialStoreFor(cmd.optsWithGlobals<{ config?: string }>().config);
      if (!(await store.delete(name, { tenant: opts.tenant }))) {
        throw new CliError(`No credential named ${name}${opts.tenant ? ` for tenant ${opts.tenant}` : ''}.`);
      }
      process.stdout.write(`${paint('green', '✓')} removed ${name}\n`);
    });
}
