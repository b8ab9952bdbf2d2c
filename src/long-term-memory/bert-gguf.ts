import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Writes a BERT sentence-embedding model (a Hugging Face folder: `config.json`, `vocab.txt`,
 * `model.safetensors` in float32) as one GGUF file that llama.cpp (node-llama-cpp) runs with mean
 * pooling: the tensors are renamed as llama.cpp's `bert` architecture names them and the WordPiece
 * vocabulary is written the way its converter does (a word-start piece is prefixed with U+2581, a
 * `##` continuation loses its `##`). Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md
 */
export async function writeBertGguf(modelDir: string, target: string, name: string): Promise<void> {
  const config = JSON.parse(await readFile(join(modelDir, 'config.json'), 'utf8')) as BertConfig;
  if (config.model_type !== 'bert')
    throw new Error(`${modelDir}/config.json is a ${config.model_type} model, not bert.`);
  const vocab = (await readFile(join(modelDir, 'vocab.txt'), 'utf8')).split('\n');
  if (vocab.at(-1) === '') vocab.pop();
  const weights = await readFile(join(modelDir, 'model.safetensors'));
  const tensors = safetensors(weights)
    .map((tensor) => ({ ...tensor, name: ggufName(tensor.name) }))
    .filter((tensor): tensor is Tensor => tensor.name !== undefined)
    .map(quantized);

  const id = (token: string) => {
    const at = vocab.indexOf(token);
    if (at < 0) throw new Error(`${modelDir}/vocab.txt has no ${token}.`);
    return at;
  };
  const header = new GgufWriter();
  header.bytes(Buffer.from('GGUF'));
  header.u32(3);
  header.u64(tensors.length);
  const kv: Array<[string, (w: GgufWriter) => void]> = [
    ['general.architecture', (w) => w.string('bert')],
    ['general.name', (w) => w.string(name)],
    ['bert.context_length', (w) => w.u32Value(config.max_position_embeddings)],
    ['bert.embedding_length', (w) => w.u32Value(config.hidden_size)],
    ['bert.feed_forward_length', (w) => w.u32Value(config.intermediate_size)],
    ['bert.block_count', (w) => w.u32Value(config.num_hidden_layers)],
    ['bert.attention.head_count', (w) => w.u32Value(config.num_attention_heads)],
    ['bert.attention.layer_norm_epsilon', (w) => w.f32Value(config.layer_norm_eps)],
    ['bert.attention.causal', (w) => w.boolValue(false)],
    ['bert.pooling_type', (w) => w.u32Value(1)], // mean
    ['tokenizer.ggml.model', (w) => w.string('bert')],
    ['tokenizer.ggml.tokens', (w) => w.stringArray(vocab.map(wordPiece))],
    ['tokenizer.ggml.token_type', (w) => w.i32Array(vocab.map((t) => (/^\[[A-Z]+\]$/.test(t) ? 3 : 1)))],
    ['tokenizer.ggml.token_type_count', (w) => w.u32Value(config.type_vocab_size)],
    ['tokenizer.ggml.unknown_token_id', (w) => w.u32Value(id('[UNK]'))],
    ['tokenizer.ggml.seperator_token_id', (w) => w.u32Value(id('[SEP]'))],
    ['tokenizer.ggml.padding_token_id', (w) => w.u32Value(id('[PAD]'))],
    ['tokenizer.ggml.bos_token_id', (w) => w.u32Value(id('[CLS]'))],
    ['tokenizer.ggml.cls_token_id', (w) => w.u32Value(id('[CLS]'))],
    ['tokenizer.ggml.mask_token_id', (w) => w.u32Value(id('[MASK]'))],
  ];
  header.u64(kv.length);
  for (const [key, write] of kv) {
    header.stringBody(key);
    write(header);
  }
  let offset = 0;
  for (const tensor of tensors) {
    header.stringBody(tensor.name);
    header.u32(tensor.shape.length);
    // GGUF lists dimensions innermost first; safetensors outermost first.
    for (const dim of [...tensor.shape].reverse()) header.u64(dim);
    header.u32(tensor.type);
    header.u64(offset);
    offset = align(offset + tensor.data.length);
  }
  const head = header.done();
  const file = await open(target, 'w');
  try {
    await file.write(head);
    await file.write(Buffer.alloc(align(head.length) - head.length));
    for (const tensor of tensors) {
      await file.write(tensor.data);
      await file.write(Buffer.alloc(align(tensor.data.length) - tensor.data.length));
    }
  } finally {
    await file.close();
  }
}

interface BertConfig {
  model_type: string;
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  max_position_embeddings: number;
  layer_norm_eps: number;
  type_vocab_size: number;
}

interface Tensor {
  name: string;
  shape: number[];
  /** GGML type: 0 F32, 8 Q8_0. */
  type: number;
  data: Buffer;
}

const Q8_0 = 8;
const Q8_BLOCK = 32;

/**
 * A matrix's weights in Q8_0 (blocks of 32 values: a float16 scale and 32 signed bytes), which
 * llama.cpp multiplies faster than float32 on a CPU; norms, biases, position and token-type embeddings stay float32.
 */
function quantized(tensor: Tensor): Tensor {
  const rowLength = tensor.shape.at(-1)!;
  if (tensor.shape.length !== 2 || rowLength % Q8_BLOCK !== 0 || !/^(blk\.|token_embd\.)/.test(tensor.name))
    return tensor;
  const values = new Float32Array(tensor.data.buffer, tensor.data.byteOffset, tensor.data.length / 4);
  const blocks = values.length / Q8_BLOCK;
  const out = Buffer.alloc(blocks * (2 + Q8_BLOCK));
  const view = new DataView(out.buffer, out.byteOffset, out.length);
  for (let b = 0; b < blocks; b++) {
    let max = 0;
    for (let i = 0; i < Q8_BLOCK; i++) max = Math.max(max, Math.abs(values[b * Q8_BLOCK + i]!));
    const scale = max / 127;
    const at = b * (2 + Q8_BLOCK);
    view.setFloat16(at, scale, true);
    for (let i = 0; i < Q8_BLOCK; i++)
      view.setInt8(at + 2 + i, scale === 0 ? 0 : Math.round(values[b * Q8_BLOCK + i]! / scale));
  }
  return { ...tensor, type: Q8_0, data: out };
}

const ALIGNMENT = 32;
const align = (n: number) => Math.ceil(n / ALIGNMENT) * ALIGNMENT;

/** The float32 tensors of a safetensors file (https://huggingface.co/docs/safetensors). */
function safetensors(file: Buffer): Tensor[] {
  const headerLength = Number(file.readBigUInt64LE(0));
  const header = JSON.parse(file.subarray(8, 8 + headerLength).toString('utf8')) as Record<
    string,
    { dtype: string; shape: number[]; data_offsets: [number, number] }
  >;
  const start = 8 + headerLength;
  return Object.entries(header)
    .filter(([name, tensor]) => name !== '__metadata__' && tensor.dtype === 'F32')
    .map(([name, tensor]) => ({
      name,
      shape: tensor.shape,
      type: 0,
      data: file.subarray(start + tensor.data_offsets[0], start + tensor.data_offsets[1]),
    }));
}

const layerParts: Record<string, string> = {
  'attention.self.query': 'attn_q',
  'attention.self.key': 'attn_k',
  'attention.self.value': 'attn_v',
  'attention.output.dense': 'attn_output',
  'attention.output.LayerNorm': 'attn_output_norm',
  'intermediate.dense': 'ffn_up',
  'output.dense': 'ffn_down',
  'output.LayerNorm': 'layer_output_norm',
};
const embeddingParts: Record<string, string> = {
  'embeddings.word_embeddings': 'token_embd',
  'embeddings.position_embeddings': 'position_embd',
  'embeddings.token_type_embeddings': 'token_types',
  'embeddings.LayerNorm': 'token_embd_norm',
};

/** llama.cpp's name of a Hugging Face BERT tensor; undefined for those it does not use (the pooler). */
function ggufName(name: string): string | undefined {
  const stripped = name.replace(/^bert\./, '');
  const kind = /\.(weight|bias)$/.exec(stripped)?.[1];
  if (!kind) return undefined;
  const base = stripped.slice(0, -kind.length - 1);
  if (embeddingParts[base]) return `${embeddingParts[base]}.${kind}`;
  const layer = /^encoder\.layer\.(\d+)\.(.+)$/.exec(base);
  const part = layer && layerParts[layer[2]!];
  return part ? `blk.${layer[1]}.${part}.${kind}` : undefined;
}

/** A WordPiece token as llama.cpp's vocabulary holds it. */
function wordPiece(token: string): string {
  if (token.startsWith('[') && token.endsWith(']')) return token;
  return token.startsWith('##') ? token.slice(2) : `\u2581${token}`;
}

/** Little-endian GGUF header bytes. */
class GgufWriter {
  readonly #chunks: Buffer[] = [];

  bytes(buffer: Buffer): void {
    this.#chunks.push(buffer);
  }
  u32(n: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    this.bytes(b);
  }
  u64(n: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    this.bytes(b);
  }
  stringBody(text: string): void {
    const b = Buffer.from(text, 'utf8');
    this.u64(b.length);
    this.bytes(b);
  }
  string(text: string): void {
    this.u32(8);
    this.stringBody(text);
  }
  u32Value(n: number): void {
    this.u32(4);
    this.u32(n);
  }
  f32Value(n: number): void {
    this.u32(6);
    const b = Buffer.alloc(4);
    b.writeFloatLE(n);
    this.bytes(b);
  }
  boolValue(value: boolean): void {
    this.u32(7);
    this.bytes(Buffer.from([value ? 1 : 0]));
  }
  stringArray(values: string[]): void {
    this.u32(9);
    this.u32(8);
    this.u64(values.length);
    for (const value of values) this.stringBody(value);
  }
  i32Array(values: number[]): void {
    this.u32(9);
    this.u32(5);
    this.u64(values.length);
    const b = Buffer.alloc(4 * values.length);
    values.forEach((value, i) => b.writeInt32LE(value, 4 * i));
    this.bytes(b);
  }
  done(): Buffer {
    return Buffer.concat(this.#chunks);
  }
}
