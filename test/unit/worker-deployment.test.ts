import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/errors.ts';
import { resolveWorkerDeployment, workerDeploymentOptions } from '../../src/deploy/worker-deployment.ts';

describe('resolveWorkerDeployment', () => {
  it('takes the option first, then TEMPORAL_DEPLOYMENT_NAME with TEMPORAL_WORKER_BUILD_ID, else none', () => {
    const env = { TEMPORAL_DEPLOYMENT_NAME: 'from-env', TEMPORAL_WORKER_BUILD_ID: 'b2' };
    expect(resolveWorkerDeployment('here', { name: 'agents', buildId: 'b1' }, env)).toEqual({
      name: 'agents',
      buildId: 'b1',
    });
    expect(resolveWorkerDeployment('here', undefined, env)).toEqual({ name: 'from-env', buildId: 'b2' });
    expect(resolveWorkerDeployment('here', undefined, {})).toBeUndefined();
    expect(resolveWorkerDeployment('here', false, env)).toBeUndefined();
  });

  it('refuses half a version, naming what is missing', () => {
    expect(() => resolveWorkerDeployment('w', undefined, { TEMPORAL_DEPLOYMENT_NAME: 'agents' })).toThrow(
      'w: TEMPORAL_DEPLOYMENT_NAME is set but TEMPORAL_WORKER_BUILD_ID is not.',
    );
    expect(() => resolveWorkerDeployment('w', undefined, { TEMPORAL_WORKER_BUILD_ID: 'b1' })).toThrow(
      'w: TEMPORAL_WORKER_BUILD_ID is set but TEMPORAL_DEPLOYMENT_NAME is not.',
    );
    expect(() => resolveWorkerDeployment('w', { name: 'agents', buildId: ' ' })).toThrow(ConfigurationError);
  });

  it('refuses a deployment name with a dot (Temporal writes a version as <name>.<buildId>)', () => {
    expect(() => resolveWorkerDeployment('w', { name: 'agents.v1', buildId: 'b1' })).toThrow(
      /contains a dot/,
    );
  });
});

it('pins the workflows of a versioned worker to its version', () => {
  expect(workerDeploymentOptions({ name: 'agents', buildId: 'b1' })).toEqual({
    version: { deploymentName: 'agents', buildId: 'b1' },
    useWorkerVersioning: true,
    defaultVersioningBehavior: 'PINNED',
  });
});
