import type { Message, ToolSchema } from '../common/messages.ts';
import type { MemoryStore } from '../memory/types.ts';
import type { ModelAdapter } from '../models/model-adapter.ts';
import { calibrationRatio, requestUnits } from './estimate.ts';
import type { ContextSettings } from './options.ts';
import { readCalibration, readSummary, type Calibration, type StoredSummary } from './store.ts';
import { buildView } from './view.ts';

/** Share of a stated provider limit a request may fill (the rest is the answer's room). */
const PROVIDER_LIMIT_SHARE = 0.9;
/** Headroom under the budget for estimation error: small once calibrated, larger before. */
const MARGIN_CALIBRATED = 0.97;
const MARGIN_UNCALIBRATED = 0.85;

/** A conversation as the context room sees it before a step. */
export interface ContextState {
  stored: Message[];
  summary: StoredSummary | undefined;
  calibration: Calibration | undefined;
  /** Real tokens per estimated unit. */
  ratio: number;
  /** Whether the ratio comes from the model's own tokenizer (else from the provider's last count). */
  tokenizer: boolean;
  /** The budget: the agent's, lowered to what the provider said it takes. */
  limit: number;
  /** What a view is built to, under `limit` by the estimate's margin. */
  viewBudget: number;
}

/** Where a step's context comes from: the conversation before `seq`, for this model and its tools. */
export interface ContextSource {
  store: MemoryStore;
  model: ModelAdapter;
  settings: ContextSettings;
  conversationId: string;
  /** The position of the step: it sees the messages before it. */
  seq: number;
  tools: readonly ToolSchema[];
}

export async function loadContextState(options: ContextSource): Promise<ContextState> {
  const { store, model, settings, conversationId, tools } = options;
  const compacting = settings.compaction !== false;
  const [stored, summary, calibration] = await Promise.all([
    store.read(conversationId, { before: options.seq }),
    compacting ? readSummary(store, conversationId) : undefined,
    readCalibration(store, conversationId),
  ]);
  let ratio = calibration?.ratio ?? 1;
  let tokenizer = false;
  if (model.countTokens) {
    const { messages } = buildView({ stored, summary, tools, ratio: 1, budget: Number.POSITIVE_INFINITY });
    ratio = calibrationRatio(
      await model.countTokens({ messages, tools: [...tools] }),
      requestUnits(messages, tools),
    );
    tokenizer = true;
  }
  const stated = calibration?.providerLimit;
  const limit = Math.min(
    settings.maxInputTokens,
    stated ? Math.floor(stated * PROVIDER_LIMIT_SHARE) : Infinity,
  );
  const margin = tokenizer || calibration ? MARGIN_CALIBRATED : MARGIN_UNCALIBRATED;
  return { stored, summary, calibration, ratio, tokenizer, limit, viewBudget: Math.floor(limit * margin) };
}
