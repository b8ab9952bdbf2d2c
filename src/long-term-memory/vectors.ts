import type { MemoryMatch } from './types.ts';

/** Cosine similarity of two vectors of one length: 1 the same direction, 0 unrelated. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return aa === 0 || bb === 0 ? 0 : dot / Math.sqrt(aa * bb);
}

/**
 * The `limit` candidates closest to `query` by cosine similarity, best first (each message compared
 * once: at the scale of one resource's memory, thousands of messages, that is a few milliseconds).
 */
export function closest(
  query: Float32Array,
  candidates: Iterable<Omit<MemoryMatch, 'score'> & { vector: Float32Array }>,
  limit: number,
): MemoryMatch[] {
  const scored: MemoryMatch[] = [];
  for (const { vector, ...match } of candidates) {
    if (vector.length !== query.length)
      throw new Error(
        `A stored vector has ${vector.length} dimensions and the query's ${query.length}, from one embedder id: ` +
          'give each embedder (model and settings) an id of its own.',
      );
    scored.push({ ...match, score: cosine(query, vector) });
  }
  return scored.sort((a, b) => b.score - a.score).slice(0, limit);
}

/** A vector as bytes (little-endian float32), for a SQLite blob or a PostgreSQL bytea. */
export function vectorBytes(vector: Float32Array): Uint8Array {
  return new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** A vector from bytes of little-endian float32 (a SQLite blob, a PostgreSQL bytea). */
export function vectorFromBytes(bytes: Uint8Array): Float32Array {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}
