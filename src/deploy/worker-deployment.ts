import type { WorkerDeploymentOptions } from '@temporalio/worker';
import { ConfigurationError } from '../errors.ts';

/**
 * A version of a Temporal worker deployment: the deployment's `name` (one per service, e.g.
 * `support-agents`) and the `buildId` of this build of its code (a git commit, an image tag).
 * See https://docs.temporal.io/worker-deployments.
 */
export interface WorkerDeployment {
  name: string;
  buildId: string;
}

/** The variables a versioned worker reads when `deployment` is not given (the names Temporal's worker controller sets). */
export const DEPLOYMENT_NAME_ENV = 'TEMPORAL_DEPLOYMENT_NAME';
export const BUILD_ID_ENV = 'TEMPORAL_WORKER_BUILD_ID';

/**
 * The deployment version a worker runs as: the option when given (`false`: none, whatever the
 * environment says), else `TEMPORAL_DEPLOYMENT_NAME` with `TEMPORAL_WORKER_BUILD_ID`, else none (an
 * unversioned worker). Throws a `ConfigurationError` for half a version (a name without a build id,
 * or the other way round) or a name with a dot.
 */
export function resolveWorkerDeployment(
  where: string,
  option: WorkerDeployment | false | undefined,
  env: Record<string, string | undefined> = process.env,
): WorkerDeployment | undefined {
  if (option === false) return undefined;
  if (option) return checked(where, option.name, option.buildId, '`deployment.name`', '`deployment.buildId`');
  const name = env[DEPLOYMENT_NAME_ENV]?.trim();
  const buildId = env[BUILD_ID_ENV]?.trim();
  if (!name && !buildId) return undefined;
  return checked(where, name, buildId, DEPLOYMENT_NAME_ENV, BUILD_ID_ENV);
}

function checked(
  where: string,
  name: string | undefined,
  buildId: string | undefined,
  nameSource: string,
  buildIdSource: string,
): WorkerDeployment {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new ConfigurationError(
      `${where}: ${buildIdSource} is set but ${nameSource} is not. A versioned worker needs both: the deployment's name and this build's id.`,
    );
  }
  if (typeof buildId !== 'string' || buildId.trim() === '') {
    throw new ConfigurationError(
      `${where}: ${nameSource} is set but ${buildIdSource} is not. A versioned worker needs both: the deployment's name and this build's id.`,
    );
  }
  if (name.includes('.')) {
    throw new ConfigurationError(
      `${where}: the deployment name "${name}" contains a dot; Temporal writes a version as <name>.<buildId>, so a name has none.`,
    );
  }
  return { name: name.trim(), buildId: buildId.trim() };
}

/**
 * Temporal's options for a versioned worker: every workflow it starts is pinned to its version (a run
 * finishes on the code it began with). Chat sessions and pollers move to a newer current version by
 * continuing as new between turns or polls.
 */
export function workerDeploymentOptions(deployment: WorkerDeployment): WorkerDeploymentOptions {
  return {
    version: { deploymentName: deployment.name, buildId: deployment.buildId },
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'PINNED',
  };
}
