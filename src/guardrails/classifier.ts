import type { ModelAdapter } from '../models/model-adapter.ts';
import { toModelAdapter, type LlmOption } from '../models/to-adapter.ts';
import type { GuardrailSubject } from './subject.ts';
import { textOf } from './subject.ts';
import type {
  GuardrailContext,
  GuardrailVerdict,
  InputGuardrail,
  OutputGuardrail,
  ToolGuardrail,
} from './types.ts';

/** What a classifier made of a text: flagged or not, and why (a short phrase, never the text). */
export interface Classification {
  flagged: boolean;
  reason?: string;
}

/** A check usable as an input, output or tool guardrail (on a call's result). */
export type AnyGuardrail = InputGuardrail & OutputGuardrail & ToolGuardrail;

/** The most characters of a text a classifier is given (the rest is left out). */
const MAX_CLASSIFIED_CHARS = 20_000;

/**
 * Asks `model` to classify `text` with `instructions`; it answers `FLAGGED: <reason>` or `OK`. An
 * answer in neither form counts as flagged (a classifier that cannot say is not a pass).
 */
export async function classify(
  model: ModelAdapter,
  instructions: string,
  text: string,
  signal: AbortSignal,
): Promise<Classification> {
  const answer = await model.generate({
    messages: [
      { role: 'system', content: instructions },
      { role: 'user', content: `<text>\n${text.slice(0, MAX_CLASSIFIED_CHARS)}\n</text>` },
    ],
    tools: [],
    signal,
  });
  const said = answer.text.trim();
  if (/^OK\b/i.test(said)) return { flagged: false };
  const flagged = /^FLAGGED\s*:?\s*(.*)$/is.exec(said);
  return {
    flagged: true,
    reason: (flagged?.[1] ?? 'the classifier gave no clear answer').trim().slice(0, 200),
  };
}

/**
 * A guardrail of any kind from a classification of the text it checks (a prompt, an answer, a tool
 * call's result; a call's arguments are not classified): a flagged text trips it.
 */
export function classifierGuardrail(
  name: string,
  what: string,
  classifyText: (text: string, signal: AbortSignal) => Promise<Classification>,
): AnyGuardrail {
  const check = async (
    subject: GuardrailSubject,
    context: GuardrailContext,
  ): Promise<GuardrailVerdict<never>> => {
    const text = textOf(subject);
    if (!text) return undefined;
    const { flagged, reason } = await classifyText(text, context.signal);
    return flagged ? { tripwire: `${what}${reason ? `: ${reason}` : ''}` } : undefined;
  };
  return { name, check: check };
}

/** The model of a classifier, as an adapter. */
export function classifierModel(model: LlmOption, where: string): ModelAdapter {
  return toModelAdapter(model, where);
}
