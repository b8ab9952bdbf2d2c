import { createHash } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { TaskPushNotificationConfig } from '@a2a-js/sdk';
import type { AgentClient } from '../client/agent-client.ts';
import {
  A2A_PUSH_CONFIG_QUERY,
  A2A_PUSH_WORKFLOW,
  type A2aPushConfig,
  type A2aPushInput,
} from '../common/a2a-push.ts';
import type { CredentialStore } from '../credentials/types.ts';
import { pushCredentialKey, writePushSecrets, type PushSecrets } from './push-secrets.ts';
import type { A2aServerSdk } from './sdk.ts';

/**
 * The push notification configurations of one agent's tasks. Each is a notifier workflow (id
 * `a2a-push-<task>-<config>`) beside the task's run, so configurations live in Temporal like the
 * tasks; the client's token and credentials go to the agent's credential store, never into history.
 */
export class A2aPushConfigs {
  readonly #agent: string;
  readonly #agents: AgentClient;
  readonly #store: CredentialStore | undefined;
  readonly #sdk: A2aServerSdk;

  constructor(opts: {
    agent: string;
    agents: AgentClient;
    credentialStore: CredentialStore | undefined;
    sdk: A2aServerSdk;
  }) {
    this.#agent = opts.agent;
    this.#agents = opts.agents;
    this.#store = opts.credentialStore;
    this.#sdk = opts.sdk;
  }

  /** Starts notifying `config.url` of the task's states (the same configuration again changes nothing). */
  async create(
    config: TaskPushNotificationConfig,
    tenant: string | undefined,
  ): Promise<TaskPushNotificationConfig> {
    let url: URL;
    try {
      url = new URL(config.url);
    } catch {
      throw new this.#sdk.errors.RequestMalformedError(
        `The push notification URL is not a URL: ${config.url}`,
      );
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new this.#sdk.errors.RequestMalformedError('The push notification URL must be http(s).');
    }
    const configId = config.id || createHash('sha256').update(config.url).digest('hex').slice(0, 16);
    const secrets: PushSecrets = {
      ...(config.token ? { token: config.token } : {}),
      ...(config.authentication?.credentials
        ? {
            authentication: {
              scheme: config.authentication.scheme || 'Bearer',
              credentials: config.authentication.credentials,
            },
          }
        : {}),
    };
    const input: A2aPushInput = { agent: this.#agent, taskId: config.taskId, configId, url: config.url };
    if (tenant) input.tenant = tenant;
    if (secrets.token || secrets.authentication) {
      if (!this.#store) {
        throw new this.#sdk.errors.PushNotificationNotSupportedError(
          `A push configuration with a token or credentials needs a credentialStore on agent "${this.#agent}".`,
        );
      }
      input.credentialKey = pushCredentialKey(config.taskId, configId);
      await writePushSecrets(this.#store, input.credentialKey, secrets, tenant);
    }
    try {
      await this.#agents.client.workflow.start(A2A_PUSH_WORKFLOW, {
        taskQueue: this.#agents.taskQueue,
        workflowId: notifierId(config.taskId, configId),
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'USE_EXISTING',
      });
    } catch (error) {
      // A notifier of this configuration ran to the task's end already: it is not started again.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
    return { ...config, id: configId };
  }

  async get(taskId: string, configId: string): Promise<TaskPushNotificationConfig> {
    const config = await this.#read(notifierId(taskId, configId));
    if (!config) {
      throw new this.#sdk.errors.TaskNotFoundError(
        `Task ${taskId} has no push notification configuration "${configId}".`,
      );
    }
    return config;
  }

  /** The task's configurations, from Temporal's visibility store (which lags a moment behind). */
  async list(taskId: string): Promise<TaskPushNotificationConfig[]> {
    const configs: TaskPushNotificationConfig[] = [];
    const query = `WorkflowType = '${A2A_PUSH_WORKFLOW}' AND WorkflowId STARTS_WITH '${notifierId(taskId, '')}'`;
    for await (const workflow of this.#agents.client.workflow.list({ query })) {
      const config = await this.#read(workflow.workflowId);
      if (config) configs.push(config);
    }
    return configs;
  }

  /** Stops notifying (and forgets the configuration's secrets). */
  async delete(taskId: string, configId: string, tenant: string | undefined): Promise<void> {
    await this.#agents.client.workflow
      .getHandle(notifierId(taskId, configId))
      .terminate('Push notification configuration deleted by the A2A client.')
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      });
    await this.#store?.delete(pushCredentialKey(taskId, configId), tenant === undefined ? {} : { tenant });
  }

  async #read(workflowId: string): Promise<TaskPushNotificationConfig | undefined> {
    try {
      const config = await this.#agents.client.workflow
        .getHandle(workflowId)
        .query<A2aPushConfig>(A2A_PUSH_CONFIG_QUERY);
      return {
        tenant: '',
        id: config.configId,
        taskId: config.taskId,
        url: config.url,
        token: '',
        authentication: undefined,
      };
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    }
  }
}

function notifierId(taskId: string, configId: string): string {
  return `a2a-push-${taskId}-${configId}`;
}
