import { z } from 'zod';
import { parseVerdict, VERIFY_PROMPT } from '../../common/deep.ts';
import { capText } from '../../common/text.ts';
import { ToolInputError } from '../../errors.ts';
import type { ToolContext, ToolOutput } from '../connector-base.ts';
import { BuiltinTool } from './builtin-tool.ts';
import { describeProcess } from './run-process.ts';

const STATUS = z.enum(['pending', 'in_progress', 'done', 'skipped']);
const MARK: Record<z.infer<typeof STATUS>, string> = {
  pending: '[ ]',
  in_progress: '[~]',
  done: '[x]',
  skipped: '[-]',
};

const planTaskParameters = z.object({
  steps: z.array(z.object({ title: z.string().min(1), status: STATUS })).min(1),
});

/**
 * `plan_task`: the model's ordered plan with a status per step. Each call replaces the plan; the
 * latest is in the events and in the run's `metadata.plan`.
 */
export class PlanTaskTool extends BuiltinTool<typeof planTaskParameters> {
  /** Only touches the jailed project folder (or the plan): runs as a local activity. */
  override readonly fast = true;
  readonly name = 'plan_task';
  readonly description =
    'Write or update your plan: the ordered steps of the task, each with a status. Call again to update it.';
  readonly parameters = planTaskParameters;

  async run(_context: ToolContext, args: z.infer<typeof planTaskParameters>): Promise<ToolOutput> {
    const { steps } = args;
    const done = steps.filter((s) => s.status === 'done').length;
    const lines = steps.map((step, i) => `${i + 1}. ${MARK[step.status]} ${step.title}`);
    return { text: `Plan (${done}/${steps.length} done):\n${lines.join('\n')}`, metadata: { plan: steps } };
  }
}

const verifyOutputParameters = z.object({
  command: z.string().optional().describe('A bash command in the project root, e.g. the test suite'),
  text: z.string().optional().describe('Text to check when no command is given'),
  expected_text: z.string().optional(),
  expected_pattern: z.string().optional().describe('JavaScript regular expression'),
  criteria: z
    .string()
    .optional()
    .describe("Plain-language criteria for the run's model to judge the text against"),
  timeout: z.number().int().min(1).max(600).optional(),
});

/**
 * `verify_output`: checks a result against criteria: a command's exit status (its output is then the
 * text checked), expected text, a pattern. Answers PASS or FAIL with the evidence.
 */
export class VerifyOutputTool extends BuiltinTool<typeof verifyOutputParameters> {
  readonly name = 'verify_output';
  readonly description =
    'Check a result: run a command (must exit 0) and/or check a text (the command output, or the given text) ' +
    'for expected text or a regular expression, and optionally have the model judge it against criteria. ' +
    'Answers PASS or FAIL with evidence.';
  readonly parameters = verifyOutputParameters;

  async run(context: ToolContext, args: z.infer<typeof verifyOutputParameters>): Promise<ToolOutput> {
    const {
      command,
      text,
      expected_text: expected,
      expected_pattern: pattern,
      criteria,
      timeout = 120,
    } = args;
    if (!command && text === undefined) throw new ToolInputError('Give a command to run or a text to check.');
    const failures: string[] = [];
    const evidence: string[] = [];
    let subject = text ?? '';
    if (command) {
      const result = await this.execute(context, 'bash', ['-c', command], timeout);
      evidence.push(describeProcess(result, timeout * 1000));
      if (result.exitCode !== 0) failures.push(`the command did not exit 0`);
      subject = `${result.stdout}\n${result.stderr}`;
    }
    if (expected !== undefined && !subject.includes(expected))
      failures.push(`expected text ${JSON.stringify(expected)} not found`);
    if (pattern !== undefined) {
      let regex: RegExp;
      try {
        regex = new RegExp(pattern, 'm');
      } catch (error) {
        throw new ToolInputError(`Invalid expected_pattern: ${(error as Error).message}`);
      }
      if (!regex.test(subject)) failures.push(`pattern /${pattern}/ did not match`);
    }
    if (criteria !== undefined) {
      if (!context.askModel)
        throw new ToolInputError('criteria needs a model to judge, and this tool runs without one.');
      const judged = parseVerdict(
        await context.askModel(
          `${VERIFY_PROMPT}\n\nTask:\n${criteria}\n\nAnswer:\n${capText(subject, 20_000).text}`,
        ),
      );
      evidence.push(
        `model judgement: ${judged.pass ? 'PASS' : 'FAIL'}${judged.feedback ? ` (${judged.feedback})` : ''}`,
      );
      if (!judged.pass)
        failures.push(`the model judged the criteria unmet${judged.feedback ? `: ${judged.feedback}` : ''}`);
    }
    const verdict = failures.length ? `FAIL: ${failures.join('; ')}` : 'PASS';
    return { text: [verdict, ...evidence].join('\n'), metadata: { pass: failures.length === 0, failures } };
  }
}
