/**
 * Exact counting with gpt-tokenizer. WORKER AND NODE ONLY: importing this
 * module loads the ~2 MB o200k table. The UI goes through workers/tokensClient
 * and the pure modules re-exported by lib/tokens/index.ts, none of which
 * import this file (a test walks the import graph to keep it that way).
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { maskStubText } from '@/lib/session/masks';
import type { SessionEntry, TokenCache } from '@/lib/session/types';
import {
  countingInput,
  framingTokens,
  MESSAGE_OVERHEAD,
  mediaParts,
  summaryText,
  TOKEN_CACHE_VERSION,
  type CountingPayload,
} from './entryText';
import { mediaTokens, type ImageFormula } from './mediaTokens';
import type { IndexCounter } from './pathIndex';
import type { Encoding } from './tokenizerFor';

type CountFn = (text: string) => number;

/*
 * Transcripts quote special-token strings ("<|endoftext|>" in a tokenizer
 * discussion, for one). The API sends user text as text, so we count them as
 * text too; gpt-tokenizer's default would throw on them instead.
 */
const AS_TEXT = { disallowedSpecial: new Set<string>() };

const o200k: CountFn = (text) => (text.length === 0 ? 0 : countO200k(text, AS_TEXT));

let cl100k: CountFn | null = null;

/**
 * cl100k is loaded on first use only (GPT-4 / GPT-3.5 sessions), so a worker
 * that never meets such a model never pays for its table.
 */
export async function loadEncoding(encoding: Encoding): Promise<CountFn> {
  if (encoding === 'o200k_base') return o200k;
  if (!cl100k) {
    const mod = await import('gpt-tokenizer/encoding/cl100k_base');
    cl100k = (text) => (text.length === 0 ? 0 : mod.countTokens(text, AS_TEXT));
  }
  return cl100k;
}

/** The counter of an encoding that is already loaded (o200k always is). */
export function encodingCounter(encoding: Encoding): CountFn {
  if (encoding === 'o200k_base') return o200k;
  if (!cl100k) throw new Error('cl100k_base is not loaded: await loadEncoding("cl100k_base") first');
  return cl100k;
}

/** Tokens of a plain string (no framing). */
export function countText(text: string, encoding: Encoding = 'o200k_base'): number {
  return encodingCounter(encoding)(text);
}

function countPieces(pieces: readonly string[], framing: number, count: CountFn): number {
  let n = framing;
  for (const p of pieces) n += count(p);
  return n;
}

/** The token cache of an extracted payload (see countingPayload). */
export function countPayload(p: CountingPayload, opts: { cl100k?: boolean } = {}): TokenCache {
  let chars = 0;
  for (const piece of p.pieces) chars += piece.length;
  const cache: TokenCache = { v: TOKEN_CACHE_VERSION, o200k: countPieces(p.pieces, p.framing, o200k), chars4: Math.ceil(chars / 4) };
  if (opts.cl100k) cache.cl100k = countPieces(p.pieces, p.framing, encodingCounter('cl100k_base'));
  return cache;
}

/**
 * The token cache of an entry: text and framing, exactly, for o200k (always)
 * and cl100k (when asked). Media are not in it: their cost depends on the
 * provider and comes from a formula at no tokenizing cost (mediaTokens.ts).
 */
export function countEntry(entry: SessionEntry, opts: { cl100k?: boolean } = {}): TokenCache {
  const input = countingInput(entry);
  return countPayload({ pieces: input.pieces, framing: framingTokens(input) }, opts);
}

/** Whether an entry's stored cache can be used for `encoding` without recounting. */
export function cacheUsable(cache: TokenCache | undefined, encoding: Encoding): cache is TokenCache {
  if (!cache || cache.v !== TOKEN_CACHE_VERSION) return false;
  return encoding === 'o200k_base' || cache.cl100k !== undefined;
}

/**
 * The counter a PathTokenIndex runs on in the worker: the entry's stored
 * cache when it is current, else an exact count, reported through
 * `onComputed` so the caller can persist it and never count that entry again.
 */
export function createExactCounter(opts: {
  encoding: Encoding;
  imageFormula: ImageFormula;
  onComputed?: (entry: SessionEntry, cache: TokenCache) => void;
}): IndexCounter {
  const count = encodingCounter(opts.encoding);
  const wantCl100k = opts.encoding === 'cl100k_base';
  return {
    entry(entry) {
      let cache = entry.tokens;
      // A reply still streaming changes under its cache; count what is there now, store nothing.
      const streaming = entry.type === 'message' && entry.message.role === 'assistant' && entry.message.status === 'streaming';
      if (streaming || !cacheUsable(cache, opts.encoding)) {
        cache = countEntry(entry, { cl100k: wantCl100k });
        if (!streaming) opts.onComputed?.(entry, cache);
      }
      const text = opts.encoding === 'cl100k_base' ? cache.cl100k! : cache.o200k;
      return { text, media: mediaTokens(mediaParts(entry), opts.imageFormula) };
    },
    revisedSummary(kind, summary) {
      return count(summaryText(kind, summary)) + MESSAGE_OVERHEAD;
    },
    maskStub(entry) {
      if (entry.type !== 'message' || entry.message.role !== 'toolResult') return 0;
      return count(maskStubText(entry.message)) + MESSAGE_OVERHEAD;
    },
  };
}
