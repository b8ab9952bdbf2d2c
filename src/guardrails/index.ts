export type {
  Guardrail,
  GuardrailAnswer,
  GuardrailContext,
  GuardrailKind,
  GuardrailPlacement,
  Guardrails,
  GuardrailToolCall,
  GuardrailVerdict,
  InputCheck,
  InputGuardrail,
  OutputCheck,
  OutputGuardrail,
  ToolCheck,
  ToolGuardrail,
} from './types.ts';
export type { GuardrailSelection, GuardrailTrip } from './recorded.ts';
export {
  piiGuardrail,
  findPii,
  redactPii,
  type PiiFinding,
  type PiiGuardrailOptions,
  type PiiKind,
} from './pii.ts';
export {
  promptInjectionGuardrail,
  PROMPT_INJECTION_PROMPT,
  type PromptInjectionGuardrailOptions,
} from './prompt-injection.ts';
export {
  moderationGuardrail,
  MODERATION_PROMPT,
  type ModerateFunction,
  type ModerationGuardrailOptions,
} from './moderation.ts';
export type { AnyGuardrail } from './classifier.ts';
