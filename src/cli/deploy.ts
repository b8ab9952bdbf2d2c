import type { Command } from 'commander';
import { BUILD_ID_ENV, DEPLOYMENT_NAME_ENV } from '../deploy/worker-deployment.ts';
import { connect, type ConnectOptions } from './connect.ts';
import { note, paint, printJson, printTable, UsageError } from './output.ts';
import { withTargetOptions } from './target.ts';

interface DeployOptions extends ConnectOptions {
  deploymentName?: string;
}

/** The deployment a command acts on: `--deployment-name`, else `TEMPORAL_DEPLOYMENT_NAME`. */
function deploymentName(opts: DeployOptions): string {
  const name = opts.deploymentName ?? process.env[DEPLOYMENT_NAME_ENV];
  if (!name) throw new UsageError(`Name the worker deployment: --deployment-name or ${DEPLOYMENT_NAME_ENV}.`);
  return name;
}

/** The build a command acts on: the argument, else `TEMPORAL_WORKER_BUILD_ID`. */
function buildIdOf(given: string | undefined): string {
  const buildId = given ?? process.env[BUILD_ID_ENV];
  if (!buildId) throw new UsageError(`Give the build id (the argument, or ${BUILD_ID_ENV}).`);
  return buildId;
}

function deployCommand(parent: Command, name: string, description: string): Command {
  return withTargetOptions(parent.command(name).description(description))
    .option('--deployment-name <name>', `the worker deployment (default: $${DEPLOYMENT_NAME_ENV})`)
    .option('--json', 'print the result as one JSON line');
}

export function registerDeploy(program: Command): void {
  const deploy = program
    .command('deploy')
    .description('Roll out a new worker version: see the deployment, ramp a version, make it current');

  deployCommand(
    deploy,
    'status',
    'The current and ramping versions, and the open workflows each version still runs',
  ).action(async (opts: DeployOptions, cmd: Command) => {
    const name = deploymentName(opts);
    const { agents } = await connect(opts, cmd);
    try {
      const { describeDeployment, openOnVersionQuery } = await import('../deploy/rollout.ts');
      const state = await describeDeployment(agents.client, name);
      if (opts.json) return printJson(state);
      const ramping = state.ramping
        ? `, ramping ${state.ramping.buildId} at ${state.ramping.percentage}%`
        : '';
      process.stdout.write(
        `Deployment ${paint('bold', name)}: current ${state.current ?? '(none)'}${ramping}\n`,
      );
      printTable(
        ['BUILD ID', 'STATUS', 'OPEN WORKFLOWS', 'CREATED'],
        state.versions.map((v) => [v.buildId, v.status, String(v.openWorkflows), v.createdAt ?? '']),
      );
      const old = state.versions.find((v) => v.buildId !== state.current && v.openWorkflows > 0);
      if (old)
        note(
          `Runs still on ${old.buildId}: temporal workflow list --query "${openOnVersionQuery(name, old.buildId)}"`,
        );
    } finally {
      await agents.close();
    }
  });

  deployCommand(
    deploy,
    'set-current [build-id]',
    'Make a version current: new workflows start on it, sessions and pollers move to it',
  ).action(async (given: string | undefined, opts: DeployOptions, cmd: Command) => {
    const name = deploymentName(opts);
    const buildId = buildIdOf(given);
    const { agents } = await connect(opts, cmd);
    try {
      const { setCurrentVersion } = await import('../deploy/rollout.ts');
      await setCurrentVersion(agents.client, name, buildId);
    } finally {
      await agents.close();
    }
    if (opts.json) printJson({ deployment: name, current: buildId });
    else process.stdout.write(`${name}: ${paint('bold', buildId)} is current\n`);
  });

  deployCommand(
    deploy,
    'ramp <percent> [build-id]',
    'Send this percentage of new workflows to a version (the rest to the current one)',
  ).action(async (percent: string, given: string | undefined, opts: DeployOptions, cmd: Command) => {
    const name = deploymentName(opts);
    const buildId = buildIdOf(given);
    const percentage = Number(percent);
    if (!/^\d+(\.\d+)?$/.test(percent) || percentage > 100) {
      throw new UsageError(`The percentage is a number from 0 to 100; got "${percent}".`);
    }
    const { agents } = await connect(opts, cmd);
    try {
      const { rampVersion } = await import('../deploy/rollout.ts');
      await rampVersion(agents.client, name, buildId, percentage);
    } finally {
      await agents.close();
    }
    if (opts.json) printJson({ deployment: name, ramping: { buildId, percentage } });
    else process.stdout.write(`${name}: ${paint('bold', buildId)} ramping at ${percentage}%\n`);
  });
}
