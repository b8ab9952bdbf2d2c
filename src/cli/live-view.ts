import yoctoSpinner, { type Spinner } from 'yocto-spinner';
import type { AgentEvent } from '../common/events.ts';
import type { AgentResult } from '../common/run.ts';
import { asText, paint, printJson } from './output.ts';

/** How a run is shown: NDJSON events, or for people (with a spinner when both outputs are terminals). */
export type ViewMode = 'json' | 'human';

/**
 * Shows a run as it happens. For people: the current step with a spinner and the elapsed time,
 * each tool call with its status, text as it streams, and the final answer on standard output
 * (progress goes to standard error). Without a terminal, no spinner and no escape codes.
 */
export class LiveView {
  readonly #mode: ViewMode;
  readonly #spinner: Spinner | undefined;
  readonly #started = Date.now();
  readonly #toolStarted = new Map<string, number>();
  #label = 'starting';
  #timer: NodeJS.Timeout | undefined;
  #streamed = '';
  #steps = 0;
  /** A structured run: its answer is printed as formatted JSON at the end, not streamed. */
  readonly #structured: boolean;

  constructor(mode: ViewMode, options: { structured?: boolean } = {}) {
    this.#mode = mode;
    this.#structured = options.structured ?? false;
    if (mode === 'human' && process.stdout.isTTY && process.stderr.isTTY) {
      this.#spinner = yoctoSpinner({ stream: process.stderr, handleSignals: false }).start(this.#text());
      this.#timer = setInterval(() => this.#refresh(), 100);
      this.#timer.unref();
    }
  }

  /** Shows one event. */
  event(event: AgentEvent): void {
    if (this.#mode === 'json') return printJson(event);
    const payload = event.payload;
    if (payload.sub_run !== undefined) return this.#subRunEvent(event);
    switch (event.type) {
      case 'step_started':
        this.#steps += 1;
        this.#label = `step ${asText(payload.iteration ?? this.#steps)}: thinking`;
        break;
      case 'tool_called':
        this.#toolStarted.set(String(payload.call_id), Date.parse(event.timestamp));
        this.#label = `running ${String(payload.tool)}`;
        break;
      case 'tool_completed':
      case 'tool_failed': {
        const began = this.#toolStarted.get(String(payload.call_id)) ?? Date.parse(event.timestamp);
        const ok = event.type === 'tool_completed';
        // A result is cut to a glance; a failure is said whole (its first line): it says what to do.
        const detail = ok
          ? firstLine(asText(payload.output))
          : asText(payload.error ?? event.message)
              .split('\n', 1)[0]!
              .trim();
        this.progress(
          `${ok ? paint('green', '✓', process.stderr) : paint('red', '✗', process.stderr)} ${String(payload.tool)} ${paint('dim', `${Date.parse(event.timestamp) - began} ms${detail ? `  ${detail}` : ''}`, process.stderr)}`,
        );
        this.#label = 'thinking';
        break;
      }
      case 'approval_requested':
        this.#label = `${asText(payload.tool)} waits for approval`;
        break;
      case 'approval_granted':
      case 'approval_rejected':
        this.progress(
          `${event.type === 'approval_granted' ? paint('green', '✓', process.stderr) : paint('red', '✗', process.stderr)} ${event.message}`,
        );
        break;
      case 'authorization_required':
        this.progress(
          `${paint('yellow', '!', process.stderr)} ${asText(payload.tool)} needs authorization of ${asText(payload.credential_key)}: open ${asText(payload.url)}`,
        );
        this.#label = `waiting for authorization of ${asText(payload.credential_key)}`;
        break;
      case 'authorization_granted':
      case 'authorization_timed_out':
        this.progress(
          `${event.type === 'authorization_granted' ? paint('green', '✓', process.stderr) : paint('red', '✗', process.stderr)} ${event.message}`,
        );
        break;
      case 'text_delta':
        if (!this.#structured) this.text(asText(payload.text));
        break;
      case 'partial_output':
        this.#label = 'writing the answer';
        break;
      case 'warning':
        this.progress(`${paint('yellow', '!', process.stderr)} ${event.message}`);
        break;
      case 'tool_waiting':
        this.progress(`${paint('yellow', '!', process.stderr)} ${event.message}`);
        this.#label = `${asText(payload.tool)} waits out a rate limit`;
        break;
      case 'model_waiting':
        this.progress(`${paint('yellow', '!', process.stderr)} ${event.message}`);
        this.#label = 'the model waits out a rate limit';
        break;
      case 'guardrail_tripped':
        this.progress(`${paint('red', '✗', process.stderr)} ${event.message}`);
        this.#label = 'stopped by a guardrail';
        break;
      case 'run_cancelled':
        this.#label = 'cancelled';
        break;
      case 'run_completed':
        if (payload.phase === undefined) this.#label = 'done';
        break;
      default:
    }
    this.#refresh();
  }

  /** A sub-agent run's event: its steps in the label, its tool calls indented under the call that started it. */
  #subRunEvent(event: AgentEvent): void {
    const { payload } = event;
    const who = String(payload.agent);
    const key = `${String(payload.sub_run)}:${String(payload.call_id)}`;
    if (event.type === 'step_started') this.#label = `${who}: step ${asText(payload.iteration)}`;
    else if (event.type === 'tool_called') {
      this.#toolStarted.set(key, Date.parse(event.timestamp));
      this.#label = `${who}: running ${String(payload.tool)}`;
    } else if (event.type === 'tool_completed' || event.type === 'tool_failed') {
      const began = this.#toolStarted.get(key) ?? Date.parse(event.timestamp);
      const ok = event.type === 'tool_completed';
      const mark = ok ? paint('green', '✓', process.stderr) : paint('red', '✗', process.stderr);
      const indent = '  '.repeat(Number(payload.depth) || 1);
      this.progress(
        `${indent}${paint('dim', `${who}:`, process.stderr)} ${mark} ${String(payload.tool)} ${paint('dim', `${Date.parse(event.timestamp) - began} ms`, process.stderr)}`,
      );
    } else if (event.type === 'approval_requested')
      this.#label = `${who}: ${asText(payload.tool)} waits for approval`;
    this.#refresh();
  }

  /** Streamed text of the answer, as it arrives. */
  text(delta: string): void {
    this.#streamed += delta;
    process.stdout.write(delta);
  }

  /** A line of progress on standard error (the spinner moves below it by itself). */
  progress(line: string): void {
    process.stderr.write(`${line}\n`);
    this.#refresh();
  }

  /** The answer on standard output, unless it was streamed already. */
  answer(output: string): void {
    this.stop();
    if (this.#streamed.trim() !== output.trim()) {
      if (this.#streamed && !this.#streamed.endsWith('\n')) process.stdout.write('\n');
      process.stdout.write(`${output}\n`);
    } else if (!this.#streamed.endsWith('\n')) process.stdout.write('\n');
    this.#streamed = '';
  }

  /** The final answer (unless it was streamed already; a structured answer as JSON) and a summary line. */
  finish(result: AgentResult<unknown>): void {
    this.stop();
    if (this.#mode === 'json') return;
    const { output } = result;
    if (typeof output === 'string') this.answer(output);
    else if (output !== undefined) this.answer(JSON.stringify(output, null, 2));
    else if (result.metadata.text) this.answer(result.metadata.text);
    const usage = result.metadata.usage;
    const tokens = usage ? ` · ${usage.input_tokens + usage.output_tokens} tokens` : '';
    process.stderr.write(
      `${paint('dim', `${result.metadata.stop_reason} in ${this.#elapsed()} · ${result.metadata.iterations} steps${tokens} · ${result.metadata.workflow_id}`, process.stderr)}\n`,
    );
  }

  /** Stops the spinner (before a prompt, an error or the end). */
  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#spinner?.isSpinning) this.#spinner.stop();
  }

  /** Starts the spinner again after a prompt. */
  resume(): void {
    if (!this.#spinner || this.#spinner.isSpinning) return;
    this.#spinner.start(this.#text());
    this.#timer = setInterval(() => this.#refresh(), 100);
    this.#timer.unref();
  }

  #refresh(): void {
    if (this.#spinner?.isSpinning) this.#spinner.text = this.#text();
  }

  #text(): string {
    return `${this.#label} ${paint('dim', this.#elapsed(), process.stderr)}`;
  }

  #elapsed(): string {
    return `${((Date.now() - this.#started) / 1000).toFixed(1)}s`;
  }
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
