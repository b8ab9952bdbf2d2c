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
export type { GuardrailTrip } from './recorded.ts';
