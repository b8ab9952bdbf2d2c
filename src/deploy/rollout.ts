import type { Client } from '@temporalio/client';
import { optionalTsToDate } from '@temporalio/common';
import proto, { type temporal } from '@temporalio/proto';
import { ConfigurationError } from '../errors.ts';

const VersionStatus = proto.temporal.api.enums.v1.WorkerDeploymentVersionStatus;

/** Where a version of a worker deployment stands (Temporal's `WorkerDeploymentVersionStatus`). */
export type DeploymentVersionStatus =
  'inactive' | 'current' | 'ramping' | 'draining' | 'drained' | 'unspecified';

/** One version of a worker deployment, and how many runs are still open on it. */
export interface DeploymentVersionState {
  buildId: string;
  status: DeploymentVersionStatus;
  /** Open workflows (runs, sessions, pollers) pinned to this version: the version can go once this is 0. */
  openWorkflows: number;
  createdAt: string | undefined;
}

/** A worker deployment: its current and ramping version, and every version it has seen. */
export interface DeploymentState {
  name: string;
  /** The build id new workflows start on (undefined: none set yet, so new workflows wait for unversioned workers). */
  current: string | undefined;
  ramping: { buildId: string; percentage: number } | undefined;
  versions: DeploymentVersionState[];
}

const STATUS_NAMES: Record<number, DeploymentVersionStatus> = {
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_INACTIVE]: 'inactive',
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_CURRENT]: 'current',
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_RAMPING]: 'ramping',
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINING]: 'draining',
  [VersionStatus.WORKER_DEPLOYMENT_VERSION_STATUS_DRAINED]: 'drained',
};

/**
 * The visibility query for the open workflows pinned to a version: what `temporal workflow list
 * --query` takes to see the runs an old version still has to finish.
 */
export function openOnVersionQuery(deploymentName: string, buildId: string): string {
  return `TemporalWorkerDeploymentVersion = '${deploymentName}:${buildId}' AND ExecutionStatus = 'Running'`;
}

/**
 * Describes a worker deployment (Temporal's `DescribeWorkerDeployment`) with the number of open
 * workflows on each version. Throws a `ConfigurationError` when the namespace has no deployment of
 * that name (no versioned worker of it has polled yet).
 */
export async function describeDeployment(client: Client, name: string): Promise<DeploymentState> {
  let info: temporal.api.deployment.v1.IWorkerDeploymentInfo | null | undefined;
  try {
    ({ workerDeploymentInfo: info } = await client.workflowService.describeWorkerDeployment({
      namespace: client.options.namespace,
      deploymentName: name,
    }));
  } catch (error) {
    throw notFound(error, name) ?? error;
  }
  const routing = info?.routingConfig;
  const ramping = routing?.rampingDeploymentVersion?.buildId;
  const versions = await Promise.all(
    (info?.versionSummaries ?? []).map(async (summary) => {
      const buildId = summary.deploymentVersion?.buildId ?? '';
      const { count } = await client.workflow.count(openOnVersionQuery(name, buildId));
      return {
        buildId,
        status: STATUS_NAMES[summary.status ?? 0] ?? 'unspecified',
        openWorkflows: count,
        createdAt: optionalTsToDate(summary.createTime)?.toISOString(),
      };
    }),
  );
  return {
    name,
    current: routing?.currentDeploymentVersion?.buildId ?? undefined,
    ramping: ramping ? { buildId: ramping, percentage: routing?.rampingVersionPercentage ?? 0 } : undefined,
    versions,
  };
}

/**
 * Makes `buildId` the deployment's current version (Temporal's `SetWorkerDeploymentCurrentVersion`):
 * new workflows start on it, and chat sessions and pollers move to it at their next turn or poll.
 * Workers of that build must have polled first. Runs already pinned to another version stay there.
 */
export async function setCurrentVersion(client: Client, name: string, buildId: string): Promise<void> {
  checkBuildId(buildId);
  try {
    await client.workflowService.setWorkerDeploymentCurrentVersion({
      namespace: client.options.namespace,
      deploymentName: name,
      buildId,
      identity: client.options.identity,
    });
  } catch (error) {
    throw notFound(error, name, buildId) ?? error;
  }
}

/**
 * Sends `percentage` (0 to 100) of new workflows to `buildId` (Temporal's
 * `SetWorkerDeploymentRampingVersion`); the rest go to the current version. Percentage 0 keeps the
 * version ramping with no traffic.
 */
export async function rampVersion(
  client: Client,
  name: string,
  buildId: string,
  percentage: number,
): Promise<void> {
  checkBuildId(buildId);
  if (!Number.isFinite(percentage) || percentage < 0 || percentage > 100) {
    throw new ConfigurationError(
      `The ramp percentage must be a number from 0 to 100; got ${String(percentage)}.`,
    );
  }
  try {
    await client.workflowService.setWorkerDeploymentRampingVersion({
      namespace: client.options.namespace,
      deploymentName: name,
      buildId,
      percentage,
      identity: client.options.identity,
    });
  } catch (error) {
    throw notFound(error, name, buildId) ?? error;
  }
}

function checkBuildId(buildId: string): void {
  if (typeof buildId !== 'string' || buildId.trim() === '') {
    throw new ConfigurationError('A build id is needed: the one the new workers were started with.');
  }
}

/** A clear error for a deployment or version the server does not know (gRPC NOT_FOUND), else undefined. */
function notFound(error: unknown, name: string, buildId?: string): ConfigurationError | undefined {
  if ((error as { code?: unknown }).code !== 5) return undefined;
  const what = buildId
    ? `Worker deployment "${name}" has no version "${buildId}" yet`
    : `There is no worker deployment "${name}" in this namespace`;
  return new ConfigurationError(
    `${what}: start a worker with that deployment name and build id first (it registers when it polls).`,
    { cause: error },
  );
}
