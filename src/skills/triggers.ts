/**
 * Trigger-phrase matching (docs/skills.md): phrases match whole tokens, case- and width-insensitively, in
 * one pass over the prompt whatever the number of phrases (Aho–Corasick over tokens).
 *
 * Tokens, and the decisions behind them:
 * - letters, marks and digits form a word; `-`, `_`, `/`, spaces and punctuation separate words, so
 *   `implement` fires on `re-implement` but never on `implemented`, and `git` never on `github`;
 * - `+` and `#` ending a word belong to it (`c++`, `c#`, `f#`; not the `+` of `a+b`), and a word
 *   after a space may start with a dot (`.net`), so `c` never fires on `c++` nor `c++` on `c`;
 * - Han, Hiragana, Katakana and Thai characters (by script extension, so the long-vowel mark ー
 *   counts) are one token each, so a phrase in a language
 *   written without spaces matches as a sequence of characters;
 * - text is folded with NFKC (full-width letters), lower case, `ß` → `ss` and a dotless/dotted `i`
 *   → `i` (Turkish); no stemming: list plural forms as phrases of their own.
 */

const TOKEN =
  /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Thai}]|(?:(?<![\p{L}\p{M}\p{N}])\.)?[\p{L}\p{M}\p{N}]+(?:[+#]+(?![\p{L}\p{M}\p{N}]))?/gu;

/** The folded form used for matching. */
export function foldText(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/ı/g, 'i')
    .replace(/ς/g, 'σ')
    .replace(/i\u0307/g, 'i');
}

export function tokenize(text: string): string[] {
  return foldText(text).match(TOKEN) ?? [];
}

export interface TriggerMatch {
  skillId: string;
  /** The phrase that fired, as written in the skill. */
  phrase: string;
  /** Index of the phrase's first token in the prompt. */
  position: number;
  /** Tokens in the phrase: the measure of specificity. */
  tokens: number;
}

interface Node {
  next: Map<string, Node>;
  fail: Node | undefined;
  /** Phrases ending here, including those of shorter suffixes (through failure links). */
  outputs: Array<{ skillId: string; phrase: string; tokens: number }>;
}

function node(): Node {
  return { next: new Map(), fail: undefined, outputs: [] };
}

/** Phrases of one or more skills compiled for matching; build once, match many prompts. */
export class TriggerMatcher {
  readonly #root = node();
  /** Phrases refused at build time (nothing to match once tokenized). */
  readonly refused: Array<{ skillId: string; phrase: string }> = [];

  constructor(entries: Iterable<{ skillId: string; phrases: readonly string[] }>) {
    for (const { skillId, phrases } of entries) {
      for (const phrase of phrases) this.#add(skillId, phrase);
    }
    this.#link();
  }

  #add(skillId: string, phrase: string): void {
    const tokens = tokenize(phrase);
    if (tokens.length === 0) {
      this.refused.push({ skillId, phrase });
      return;
    }
    let current = this.#root;
    for (const token of tokens) {
      let child = current.next.get(token);
      if (!child) {
        child = node();
        current.next.set(token, child);
      }
      current = child;
    }
    if (!current.outputs.some((o) => o.skillId === skillId))
      current.outputs.push({ skillId, phrase, tokens: tokens.length });
  }

  /** Breadth-first failure links, as in Aho–Corasick; outputs inherit those of their failure node. */
  #link(): void {
    const queue: Node[] = [];
    for (const child of this.#root.next.values()) {
      child.fail = this.#root;
      queue.push(child);
    }
    for (let i = 0; i < queue.length; i++) {
      const current = queue[i]!;
      for (const [token, child] of current.next) {
        let fallback = current.fail;
        while (fallback && !fallback.next.has(token)) fallback = fallback.fail;
        child.fail = fallback?.next.get(token) ?? this.#root;
        child.outputs.push(...child.fail.outputs);
        queue.push(child);
      }
    }
  }

  /** Every phrase that occurs in `prompt`, in one pass over its tokens. */
  matchAll(prompt: string): TriggerMatch[] {
    const matches: TriggerMatch[] = [];
    let current = this.#root;
    const tokens = tokenize(prompt);
    tokens.forEach((token, index) => {
      while (current !== this.#root && !current.next.has(token)) current = current.fail!;
      current = current.next.get(token) ?? this.#root;
      for (const output of current.outputs) {
        matches.push({ ...output, position: index - output.tokens + 1 });
      }
    });
    return matches;
  }

  /**
   * The skills whose phrases occur in `prompt`, one entry per skill with its most specific phrase
   * (most tokens, then longest), most specific skills first, then by first occurrence.
   */
  match(prompt: string): TriggerMatch[] {
    const best = new Map<string, TriggerMatch>();
    for (const match of this.matchAll(prompt)) {
      const previous = best.get(match.skillId);
      if (!previous || specificity(match) > specificity(previous)) best.set(match.skillId, match);
    }
    return [...best.values()].sort(
      (a, b) =>
        specificity(b) - specificity(a) || a.position - b.position || a.skillId.localeCompare(b.skillId),
    );
  }
}

function specificity(match: TriggerMatch): number {
  return match.tokens * 10_000 + match.phrase.length;
}
