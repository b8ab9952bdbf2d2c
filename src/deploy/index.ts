/** Rolling out a new worker version: worker deployments, their rollout, and the replay check before it. */
export type { WorkerDeployment } from './worker-deployment.ts';
export {
  describeDeployment,
  openOnVersionQuery,
  rampVersion,
  setCurrentVersion,
  type DeploymentState,
  type DeploymentVersionState,
  type DeploymentVersionStatus,
} from './rollout.ts';
export {
  AGENT_WORKFLOW_TYPES,
  replayHistories,
  type ReplayFailure,
  type ReplayHistoriesOptions,
  type ReplayReport,
} from './replay.ts';
