/**
 * A2A push notifications (docs/a2a.md): what the notifier workflow of one task and one push
 * configuration is given and what it tells. Shared by workflow, activity and server code; no imports.
 */

/** The workflow type that sends one push configuration's notifications of one task. */
export const A2A_PUSH_WORKFLOW = 'a2aPushNotifications';

/** The query that answers a notifier's configuration (without its secrets). */
export const A2A_PUSH_CONFIG_QUERY = 'toolkit.a2aPushConfig';

/** Input of the notifier workflow. No secret: the client's token and credentials are in the credential store. */
export interface A2aPushInput {
  /** The agent of the task (whose credential store holds the configuration's secrets). */
  agent: string;
  /** The task: the workflow id of its run. */
  taskId: string;
  /** The configuration's id (the client's, or one derived from its URL). */
  configId: string;
  /** Where notifications are POSTed. */
  url: string;
  /** The credential record holding the client's notification token and authentication, if it gave any. */
  credentialKey?: string;
  tenant?: string;
}

/** The configuration a notifier answers to the query. */
export interface A2aPushConfig {
  configId: string;
  taskId: string;
  url: string;
}

/** A state the task was seen in: its name (`TASK_STATE_WORKING`), and whether the task never leaves it. */
export interface A2aTaskStateSeen {
  state: string;
  terminal: boolean;
}
