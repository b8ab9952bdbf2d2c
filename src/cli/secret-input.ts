import { text } from 'node:stream/consumers';
import { read } from 'read';
import { CliError } from './output.ts';

/**
 * A secret typed at a hidden prompt (standard input is a terminal) or piped on standard input, one
 * value with its final newline removed. Never taken from the command line, where it would stay in
 * the shell history and the process list.
 */
export async function readSecret(prompt: string): Promise<string> {
  let secret: string;
  if (process.stdin.isTTY) {
    secret = await read({ prompt, silent: true, replace: '*', output: process.stderr });
  } else {
    secret = (await text(process.stdin)).replace(/\r?\n$/, '');
  }
  if (!secret) throw new CliError('No secret was given (an empty line or empty standard input).');
  return secret;
}

/** A yes/no question on the terminal; `false` when standard input is not a terminal. */
export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const answer = await read({ prompt: `${question} [y/n] `, output: process.stderr });
  return /^y(es)?$/i.test(answer.trim());
}
