import { JSONParser } from '@streamparser/json';
import { DETECT_HEAD_CHARS, detectFormat } from './detect';
import { Fnv1a64 } from './hash';
import { parseJsonDocument } from './jsonValues';
import { LineSplitter, Utf8Counter } from './lines';
import { ChatGptCollector } from './readers/chatgpt';
import { ClaudeAiCollector } from './readers/claudeAi';
import { claudeCodeSink } from './readers/claudeCode';
import { codexSink } from './readers/codex';
import { geminiSink, isGeminiDocument } from './readers/gemini';
import { asImportError, JsonlFeeder, type JsonlSinkFactory } from './readers/jsonl';
import { nativeSink } from './readers/native';
import { OpenWebUiCollector } from './readers/openWebUi';
import { piSink } from './readers/pi';
import { readAs } from './import';
import { ImportError, type FormatId, type ImportOptions, type ImportResult } from './types';
import type { SessionMeta, SessionSnapshot } from '@/lib/session/types';

/**
 * Streaming import for files too big to hold twice (100 MB ChatGPT exports).
 *
 * The first ~64 KB are buffered to detect the format, then:
 * - JSON lines (native, pi, Claude Code, Codex, Gemini CLI's .jsonl) go line
 *   by line through the same JsonlFeeder the text readers use;
 * - a ChatGPT, Claude.ai or Open WebUI export array is parsed with
 *   @streamparser/json, one conversation at a time, each handed to the same
 *   converter the text reader uses and then dropped (keepStack: false, so the
 *   parser does not keep them either);
 * - single documents (LibreChat, SWE-agent, LobeChat, a Gemini CLI .json, one
 *   Open WebUI chat) are small and are buffered, then read as text.
 * The content hash is computed over the chunks as they pass, so it equals the
 * hash of the whole text.
 *
 * With `onSessions`, the conversations of an export array are handed over as
 * they are converted (awaited before the next chunk is read, so a slow store
 * holds the reader back and memory stays bounded) instead of being returned;
 * their `meta.source.hash` is filled in once the last chunk is read.
 */

export interface StreamImportOptions extends ImportOptions {
  totalBytes?: number;
  onProgress?: (bytesRead: number) => void;
  onSessions?: (sessions: SessionSnapshot[]) => Promise<void>;
}

interface Consumer {
  push(chunk: string): void;
  finish(hash: string): ImportResult;
  /** The sessions complete so far, handed over (export arrays only). */
  take?(): SessionSnapshot[];
}

const JSONL_SINKS: Partial<Record<FormatId, JsonlSinkFactory>> = {
  native: nativeSink,
  pi: piSink,
  'claude-code': claudeCodeSink,
  codex: codexSink,
  'gemini-cli': geminiSink,
};

/** Converts one element of an export array at a time (ChatGptCollector and its kin). */
interface ArrayCollector {
  add(element: unknown): void;
  take(): SessionSnapshot[];
  finish(hash: string): ImportResult;
}

const ARRAY_COLLECTORS: Partial<Record<FormatId, (opts: ImportOptions) => ArrayCollector>> = {
  chatgpt: (opts) => new ChatGptCollector(opts),
  'claude-ai': (opts) => new ClaudeAiCollector(opts),
  'open-webui': (opts) => new OpenWebUiCollector(opts),
};

function jsonlConsumer(format: FormatId, factory: JsonlSinkFactory, opts: ImportOptions): Consumer {
  const feeder = new JsonlFeeder(format, factory, opts);
  const splitter = new LineSplitter(feeder.line);
  return {
    push: (chunk) => splitter.push(chunk),
    finish: (hash) => {
      splitter.end();
      return feeder.finish(hash);
    },
  };
}

/**
 * Line numbers for the streamed JSON parser's errors, which give a byte
 * offset (or none, when the token parser objects: then the tokenizer's offset
 * is where it stopped). Only the write in progress is scanned: before it, a
 * count of lines and bytes is all that is kept.
 */
class LineCounter {
  private line = 1;
  private readonly bytes = new Utf8Counter();

  /** The 1-based line of absolute byte `at`, when it falls in `text` (the write in progress). */
  lineOf(text: string, at: number): number | undefined {
    let b = this.bytes.bytes;
    if (!(at >= b)) return undefined;
    let line = this.line;
    for (let i = 0; i < text.length && b < at; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a) line++;
      if (c < 0x80) b += 1;
      else if (c < 0x800) b += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        b += 4;
        i++;
      } else b += 3;
    }
    return b >= at ? line : undefined;
  }

  advance(text: string): void {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.line++;
    this.bytes.add(text);
  }
}

function streamError(err: unknown, chars: number, format: FormatId, lineOf: (byte: number) => number | undefined, parserOffset?: number): ImportError {
  if (err instanceof ImportError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if (/ended in (the )?mid/i.test(msg)) return new ImportError('The file ends in the middle of a JSON value (truncated JSON).', { format, cause: err });
  const pos = /absolute position "?(\d+)/.exec(msg) ?? /position "?(\d+)/.exec(msg);
  const byte = pos ? Number(pos[1]) : parserOffset;
  const why = msg.replace(/\s*at chunk position "?\d+"?\s*\(absolute position "?\d+"?\)/, '').replace(/\s*at position "?\d+"?/, '');
  const line = byte !== undefined ? lineOf(byte) : undefined;
  if (line !== undefined) return new ImportError(`Line ${line}: invalid JSON (${why})`, { format, line, cause: err });
  const where = pos ? `at byte ${pos[1]}` : `after character ${chars}`;
  return new ImportError(`Invalid JSON ${where} (${why})`, { format, cause: err });
}

function arrayConsumer(collector: ArrayCollector, format: FormatId): Consumer {
  const parser = new JSONParser({ paths: ['$.*'], keepStack: false });
  const queue: unknown[] = [];
  // Conversations are converted after write() returns, so a conversion error is ours, not the parser's.
  parser.onValue = ({ value }) => {
    queue.push(value);
  };
  let seen = 0;
  const lines = new LineCounter();
  // The tokenizer's byte offset: where it stopped when the token parser rejects a token (not in the public types).
  const parserOffset = () => (parser as unknown as { tokenizer?: { offset?: unknown } }).tokenizer?.offset;
  // The parser encodes each write to UTF-8 on its own, so a surrogate pair must not be split across writes.
  let carry = '';
  const drain = () => {
    while (queue.length) collector.add(queue.shift());
  };
  const write = (text: string) => {
    try {
      parser.write(text);
    } catch (err) {
      const offset = parserOffset();
      throw streamError(err, seen, format, (byte) => lines.lineOf(text, byte), typeof offset === 'number' ? offset : undefined);
    }
    seen += text.length;
    lines.advance(text);
    drain();
  };
  return {
    push: (chunk) => {
      let text = carry + chunk;
      carry = '';
      const last = text.charCodeAt(text.length - 1);
      if (last >= 0xd800 && last <= 0xdbff) {
        carry = text.slice(-1);
        text = text.slice(0, -1);
      }
      if (text) write(text);
    },
    finish: (hash) => {
      if (carry) write(carry);
      try {
        // Without a separator the parser ends by itself once the root array closes.
        if (!parser.isEnded) parser.end();
      } catch (err) {
        throw streamError(err, seen, format, () => undefined);
      }
      drain();
      return collector.finish(hash);
    },
    take: () => collector.take(),
  };
}

function bufferedConsumer(finish: (text: string) => ImportResult): Consumer {
  const parts: string[] = [];
  return { push: (c) => void parts.push(c), finish: () => finish(parts.join('')) };
}

function consumerFor(format: FormatId, head: string, opts: ImportOptions): Consumer {
  const sink = JSONL_SINKS[format];
  if (sink && !(format === 'gemini-cli' && isGeminiDocument(head))) return jsonlConsumer(format, sink, opts);
  const collector = ARRAY_COLLECTORS[format];
  if (collector && head.trimStart().startsWith('[')) return arrayConsumer(collector(opts), format);
  if (format === 'chatgpt') {
    // A single conversation object: one conversation is small enough to buffer.
    return bufferedConsumer((text) => {
      const collector = new ChatGptCollector(opts);
      collector.add(parseJsonDocument(text, 'chatgpt'));
      return collector.finish('');
    });
  }
  return bufferedConsumer((text) => readAs(format, text, opts));
}

export async function importStream(chunks: AsyncIterable<string>, given: StreamImportOptions = {}): Promise<ImportResult> {
  // One import, one import time, for every undated session of the file.
  const opts = { ...given, importedAt: given.importedAt ?? Date.now() };
  const hasher = new Fnv1a64();
  const counter = new Utf8Counter();
  let format: FormatId | undefined;
  const handedOver: SessionMeta[] = [];
  const handOver = async () => {
    const sessions = opts.onSessions && consumer?.take ? consumer.take() : [];
    if (sessions.length === 0) return;
    for (const s of sessions) handedOver.push(s.meta);
    await opts.onSessions!(sessions);
  };
  let consumer: Consumer | undefined;
  try {
    const seen = (chunk: string) => {
      hasher.update(chunk);
      opts.onProgress?.(counter.add(chunk));
    };
    let head = '';
    const start = () => {
      const detected = detectFormat(head.slice(0, DETECT_HEAD_CHARS), opts.fileName);
      if (detected === 'archive') throw new ImportError('This is a zip archive; read it as bytes with importArchive, not as a text stream.');
      format = detected;
      // The BOM is not part of any record; both parsers would reject it.
      const body = head.charCodeAt(0) === 0xfeff ? head.slice(1) : head;
      consumer = consumerFor(detected, body, opts);
      consumer.push(body);
      head = '';
    };
    for await (const chunk of chunks) {
      if (typeof chunk !== 'string' || chunk.length === 0) continue;
      seen(chunk);
      if (consumer) {
        consumer.push(chunk);
        await handOver();
      } else {
        head += chunk;
        if (head.length >= DETECT_HEAD_CHARS) start();
      }
    }
    const before = counter.bytes;
    if (counter.end() !== before) opts.onProgress?.(counter.bytes);
    if (!consumer) start();
    const result = consumer!.finish(hasher.hex());
    // A buffered single ChatGPT conversation was hashed above, not by the reader.
    for (const s of result.sessions) if (s.meta.source && format !== 'native') s.meta.source.hash = hasher.hex();
    for (const meta of handedOver) if (meta.source) meta.source.hash = hasher.hex();
    return result;
  } catch (err) {
    throw asImportError(err, format);
  }
}
