/**
 * LoCoMo's conversations for the long-term memory bench: reading the `locomo10` files
 * (snap-research/locomo) and scoring recall by evidence, without a model.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MONTH_NAMES } from '../src/long-term-memory/query-dates.ts';

export interface Turn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}
export interface Question {
  question: string;
  evidence: string[];
  category: number;
}
export interface Conversation {
  id: string;
  sessions: Array<{ sessionId: string; at: Date; turns: Turn[] }>;
  questions: Question[];
}

/** LoCoMo's session dates, e.g. "1:56 pm on 8 May, 2023", read as UTC. */
function sessionDate(text: string): Date {
  const m = /^(\d{1,2}):(\d{2}) (am|pm) on (\d{1,2}) (\w+),? (\d{4})$/i.exec(text.trim());
  const month = m ? MONTH_NAMES.indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`A session date LoCoMo does not write: ${JSON.stringify(text)}`);
  const hour = (Number(m[1]) % 12) + (m[3]!.toLowerCase() === 'pm' ? 12 : 0);
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

/** The conversations of `dir` (`conv-*.json`), by file name. */
export async function loadConversations(dir: string): Promise<Conversation[]> {
  const files = (await readdir(dir)).filter((name) => /^conv-.*\.json$/.test(name)).sort();
  if (files.length === 0) throw new Error(`No conv-*.json files in LOCOMO_DIR=${dir}.`);
  return Promise.all(
    files.map(async (file) => {
      const raw = JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, unknown>;
      const numbers = Object.keys(raw)
        .map((key) => /^session_(\d+)$/.exec(key)?.[1])
        .filter((n): n is string => n !== undefined)
        .map(Number)
        .sort((a, b) => a - b);
      return {
        id: file.replace(/\.json$/, ''),
        sessions: numbers.map((n) => ({
          sessionId: `session_${n}`,
          at: sessionDate(raw[`session_${n}_date_time`] as string),
          turns: raw[`session_${n}`] as Turn[],
        })),
        questions: raw.qa as Question[],
      };
    }),
  );
}

/** What is remembered of a turn: the session's date, the speaker, what was said and a shared photo's caption. */
export function turnText(turn: Turn, date: string): string {
  const photo = turn.blip_caption ? ` [shares a photo: ${turn.blip_caption}]` : '';
  return `${date} ${turn.speaker}: ${turn.text}${photo}`;
}

/** The questions scored: category 5 (adversarial, no answer in the conversation) left out. */
export function scoredQuestions(conversation: Conversation): Question[] {
  return conversation.questions.filter((qa) => qa.category !== 5 && qa.evidence.length > 0);
}

export const KS = [5, 10, 20] as const;

/** Evidence recall@k for each k and hit@1 of one question's recalled ids. */
export function score(ids: string[], evidence: string[]): { recall: number[]; hit1: boolean } {
  const wanted = new Set(evidence);
  return {
    recall: KS.map((k) => ids.slice(0, k).filter((id) => wanted.has(id)).length / wanted.size),
    hit1: ids[0] !== undefined && wanted.has(ids[0]),
  };
}

/** The p-th percentile of `values`. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}
