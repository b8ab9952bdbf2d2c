import type { Artifact, Message, Part, TaskState } from '@a2a-js/sdk';

/**
 * The A2A task states a run goes through (the SDK's `TaskState` values, written out so that this
 * module loads without the optional SDK).
 */
export const STATE = {
  submitted: 1 as TaskState.TASK_STATE_SUBMITTED,
  working: 2 as TaskState.TASK_STATE_WORKING,
  completed: 3 as TaskState.TASK_STATE_COMPLETED,
  failed: 4 as TaskState.TASK_STATE_FAILED,
  canceled: 5 as TaskState.TASK_STATE_CANCELED,
  inputRequired: 6 as TaskState.TASK_STATE_INPUT_REQUIRED,
} as const;

/** The wire names of {@link STATE}'s values, as A2A's JSON writes them. */
export const STATE_NAMES: Record<number, string> = {
  [STATE.submitted]: 'TASK_STATE_SUBMITTED',
  [STATE.working]: 'TASK_STATE_WORKING',
  [STATE.completed]: 'TASK_STATE_COMPLETED',
  [STATE.failed]: 'TASK_STATE_FAILED',
  [STATE.canceled]: 'TASK_STATE_CANCELED',
  [STATE.inputRequired]: 'TASK_STATE_INPUT_REQUIRED',
};

const TERMINAL = new Set<TaskState>([STATE.completed, STATE.failed, STATE.canceled]);

/** A state the task never leaves. */
export function isTerminal(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

/** A state a blocking `message/send` returns at: terminal, or waiting for the client. */
export function isSettled(state: TaskState | undefined): boolean {
  return isTerminal(state) || state === STATE.inputRequired;
}

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** A message of the agent (role agent) in a task. */
export function agentMessage(
  ids: { taskId: string; contextId: string; messageId: string },
  parts: Part[],
): Message {
  return {
    ...ids,
    role: 2,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The answer of a run as the task's artifact: its text, and a structured answer as a data part too. */
export function answerArtifact(output: unknown): Artifact {
  const parts =
    typeof output === 'string' ? [textPart(output)] : [textPart(JSON.stringify(output)), dataPart(output)];
  return {
    artifactId: 'answer',
    name: 'answer',
    description: '',
    parts,
    metadata: undefined,
    extensions: [],
  };
}

/** The text of a client's message (its text parts, joined) and its data parts. */
export function readMessage(message: Message): { text: string; data: unknown[] } {
  const text: string[] = [];
  const data: unknown[] = [];
  for (const part of message.parts) {
    if (part.content?.$case === 'text') text.push(part.content.value);
    else if (part.content?.$case === 'data') data.push(part.content.value);
  }
  return { text: text.join('\n').trim(), data };
}
