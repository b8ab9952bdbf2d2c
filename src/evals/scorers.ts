import type { JsonSchemaObject } from '../output/types.ts';
import { checkAnswer } from '../output/check.ts';
import { toOutputJsonSchema, type OutputSchema } from '../output/schema.ts';
import type { Usage } from '../common/messages.ts';
import type { CaseRun, Score, Scorer, TrajectoryCall } from './types.ts';

const verdict = (pass: boolean, reason: string): Score => ({ score: pass ? 1 : 0, pass, reason });

/** The answer as text: a structured answer as its JSON. */
export function outputText(run: CaseRun): string {
  return typeof run.output === 'string' ? run.output : (JSON.stringify(run.output) ?? '');
}

/** What a case without `expected` scores with a scorer that compares with it: passes, saying so. */
const NOTHING_EXPECTED: Score = { score: 1, pass: true, reason: 'the case expects no answer' };

/**
 * Passes when the answer equals the case's `expected` (text after trimming; a structured answer
 * deeply, as JSON with sorted keys). A case without `expected` passes.
 */
export function exactOutput(): Scorer {
  return {
    name: 'exact',
    score(run, evalCase) {
      const expected = evalCase.expected;
      if (expected === undefined) return NOTHING_EXPECTED;
      const same =
        typeof expected === 'string'
          ? outputText(run).trim() === expected.trim()
          : canonical(run.output) === canonical(expected);
      return verdict(same, same ? 'the answer is the expected one' : `expected ${canonical(expected)}`);
    },
  };
}

/**
 * Passes when the answer contains `text` (default: the case's `expected`; a case without it passes),
 * ignoring case unless `caseSensitive`.
 */
export function outputIncludes(text?: string, opts: { caseSensitive?: boolean } = {}): Scorer {
  return {
    name: 'includes',
    score(run, evalCase) {
      const expected = text ?? evalCase.expected;
      if (expected === undefined) return NOTHING_EXPECTED;
      const wanted = typeof expected === 'string' ? expected : canonical(expected);
      const fold = (s: string) => (opts.caseSensitive ? s : s.toLowerCase());
      const found = fold(outputText(run)).includes(fold(wanted));
      return verdict(found, found ? `contains "${wanted}"` : `does not contain "${wanted}"`);
    },
  };
}

/** Passes when the answer matches `pattern`. */
export function outputMatches(pattern: RegExp): Scorer {
  return {
    name: 'regex',
    score(run) {
      const found = pattern.test(outputText(run));
      return verdict(found, `${found ? 'matches' : 'does not match'} ${String(pattern)}`);
    },
  };
}

/** Passes when the answer (its JSON, or the object of a structured run) matches a zod schema or a JSON Schema. */
export function outputSchema(schema: OutputSchema): Scorer {
  const json: JsonSchemaObject = toOutputJsonSchema(schema, 'outputSchema');
  return {
    name: 'schema',
    score(run) {
      const checked = checkAnswer(outputText(run), json);
      if (checked.ok) return verdict(true, 'matches the schema');
      return verdict(false, checked.issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; '));
    },
  };
}

/** A tool call a trajectory expects: the tool, and optionally the arguments it must have (a subset of them). */
export interface ExpectedCall {
  tool: string;
  args?: Record<string, unknown>;
}

/**
 * Judges the run's tool calls (its sub-agents' included) against `expected`, in one of three modes:
 * `exact` (these calls and no others, in this order), `inOrder` (these calls in this order, others
 * between them allowed) or `subset` (each of these calls, in any order). A call matches when the
 * tool is the same and every expected argument equals the call's. The score is the share of
 * expected calls found.
 */
export function toolTrajectory(
  expected: ExpectedCall[],
  opts: { mode?: 'exact' | 'inOrder' | 'subset' } = {},
): Scorer {
  const mode = opts.mode ?? 'inOrder';
  return {
    name: `trajectory(${mode})`,
    score(run) {
      const calls = run.toolCalls;
      let found = 0;
      if (mode === 'subset') {
        const left = [...calls];
        for (const want of expected) {
          const at = left.findIndex((call) => callMatches(call, want));
          if (at >= 0) {
            left.splice(at, 1);
            found += 1;
          }
        }
      } else {
        let from = 0;
        for (const want of expected) {
          const at = calls.findIndex((call, i) => i >= from && callMatches(call, want));
          if (at < 0 || (mode === 'exact' && at !== from)) break;
          found += 1;
          from = at + 1;
        }
      }
      const complete = found === expected.length && (mode !== 'exact' || calls.length === expected.length);
      const score = expected.length === 0 ? (complete ? 1 : 0) : found / expected.length;
      const made = calls.map((call) => call.tool).join(', ') || 'none';
      return {
        score: complete ? 1 : Math.min(score, 0.99),
        pass: complete,
        reason: complete ? `calls: ${made}` : `expected ${describe(expected)}; made: ${made}`,
      };
    },
  };
}

function callMatches(call: TrajectoryCall, want: ExpectedCall): boolean {
  if (call.tool !== want.tool) return false;
  return Object.entries(want.args ?? {}).every(
    ([key, value]) => canonical(call.args[key]) === canonical(value),
  );
}

function describe(expected: ExpectedCall[]): string {
  return expected.map((call) => (call.args ? `${call.tool}(${canonical(call.args)})` : call.tool)).join(', ');
}

/** Passes when the run used at most these tokens (over the run, its sub-agents included). */
export function usageBudget(
  max: Partial<Pick<Usage, 'input_tokens' | 'output_tokens' | 'total_tokens'>>,
): Scorer {
  return {
    name: 'usage',
    score(run) {
      const over = (Object.keys(max) as Array<keyof typeof max>).filter((key) => run.usage[key] > max[key]!);
      const reason = over.length
        ? over.map((key) => `${key} ${run.usage[key]} > ${max[key]}`).join(', ')
        : `${run.usage.total_tokens} tokens`;
      return verdict(over.length === 0, reason);
    },
  };
}

/** Passes when the run took at most `maxMs` from start to answer. */
export function latencyBudget(maxMs: number): Scorer {
  return {
    name: 'latency',
    score(run) {
      const within = run.durationMs <= maxMs;
      return verdict(within, `${run.durationMs} ms ${within ? '<=' : '>'} ${maxMs} ms`);
    },
  };
}

/** JSON with object keys sorted, so that equal values compare equal. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}
