/**
 * The text of a local model's reply while it is written. The local model answers with grammar-bound
 * JSON (`{"answer": "..."}` or a tool call); this follows the raw output chunk by chunk and hands
 * on the decoded characters of `answer` as they arrive, and nothing for a tool call.
 */
export class LocalAnswerStream {
  readonly #onText: (text: string) => void;
  #raw = '';
  /** Where the answer's string body starts in `#raw`, once known; -1 when the reply is no answer. */
  #start: number | undefined;
  /** How much of the string body has been decoded and handed on. */
  #done = 0;
  #closed = false;

  constructor(onText: (text: string) => void) {
    this.#onText = onText;
  }

  push(chunk: string): void {
    if (this.#closed || this.#start === -1) return;
    this.#raw += chunk;
    if (this.#start === undefined) {
      const opening = /^\s*\{\s*"answer"\s*:\s*"/.exec(this.#raw);
      if (opening) this.#start = opening[0].length;
      else if (!/^\s*(\{\s*("a?n?s?w?e?r?"?\s*:?\s*)?)?$/.test(this.#raw)) this.#start = -1;
      if (this.#start === undefined || this.#start === -1) return;
    }
    let text = '';
    let i = this.#start + this.#done;
    while (i < this.#raw.length) {
      const char = this.#raw[i]!;
      if (char === '"') {
        this.#closed = true;
        break;
      }
      if (char !== '\\') {
        text += char;
        i += 1;
        continue;
      }
      const length = this.#raw[i + 1] === 'u' ? 6 : 2;
      if (i + length > this.#raw.length) break; // the rest of the escape is still to come
      text += JSON.parse(`"${this.#raw.slice(i, i + length)}"`) as string;
      i += length;
    }
    this.#done = i - this.#start;
    if (text) this.#onText(text);
  }
}

/**
 * The JSON of a structured answer while the local model writes `{"answer": <value>}`: hands on the
 * value's text as it arrives (holding back the last `}`, which may close the wrapper), and nothing
 * for a tool call.
 */
export class LocalObjectStream {
  readonly #onText: (text: string) => void;
  #raw = '';
  /** Where the value starts in `#raw`, once known; -1 when the reply is no answer. */
  #start: number | undefined;
  /** How much of `#raw` has been handed on. */
  #sent = 0;

  constructor(onText: (text: string) => void) {
    this.#onText = onText;
  }

  push(chunk: string): void {
    if (this.#start === -1) return;
    this.#raw += chunk;
    if (this.#start === undefined) {
      const opening = /^\s*\{\s*"answer"\s*:\s*/.exec(this.#raw);
      if (opening && opening[0].length < this.#raw.length) this.#start = opening[0].length;
      else if (!/^\s*(\{\s*("a?n?s?w?e?r?"?\s*:?\s*)?)?$/.test(this.#raw)) this.#start = -1;
      if (this.#start === undefined || this.#start === -1) return;
      this.#sent = this.#start;
    }
    const end = this.#raw.replace(/\}\s*$/, '').length;
    if (end > this.#sent) {
      this.#onText(this.#raw.slice(this.#sent, end));
      this.#sent = end;
    }
  }
}
