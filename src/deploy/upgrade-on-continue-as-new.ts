/**
 * Upgrade on continue-as-new, for the long-lived workflows (chat sessions, pollers). Workflow code:
 * deterministic, imports nothing but `@temporalio/workflow`.
 */
import { makeContinueAsNewFunc, workflowInfo, type Workflow } from '@temporalio/workflow';

/**
 * Whether the deployment's target version is no longer the one this pinned run is on (a new version
 * was set current or is ramping). Temporal tells a run at its next workflow task; always false on an
 * unversioned worker. See https://docs.temporal.io/production-deployment/worker-deployments/worker-versioning/upgrade-on-continue-as-new.
 */
export function targetVersionChanged(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged;
}

/**
 * Continues as new with `args`; when {@link targetVersionChanged}, the new run starts on the target
 * version (`initialVersioningBehavior: 'AUTO_UPGRADE'`) instead of staying on this run's version.
 * Call it only between units of work (no turn or poll in progress).
 */
export function continueAsNewOnTargetVersion<F extends Workflow>(...args: Parameters<F>): Promise<never> {
  const options = targetVersionChanged() ? { initialVersioningBehavior: 'AUTO_UPGRADE' as const } : {};
  return makeContinueAsNewFunc<F>(options)(...args);
}
