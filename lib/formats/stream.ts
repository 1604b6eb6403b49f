import { DETECT_HEAD_CHARS, detectFormat } from './detect';
import { Fnv1a64 } from './hash';
import { parseJsonDocument } from './jsonValues';
import { JsonArrayStream } from './jsonArrayStream';
import { LineSplitter, Utf8Counter } from './lines';
import { ChatGptCollector } from './readers/chatgpt';
import { ClaudeAiCollector } from './readers/claudeAi';
import { claudeCodeSink, isClaudeCodeArray } from './readers/claudeCode';
import { codexSink } from './readers/codex';
import { geminiSink, isGeminiDocument } from './readers/gemini';
import { asImportError, JsonlFeeder, RecordArrayFeeder, type JsonlSinkFactory } from './readers/jsonl';
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
 *   by line through the same JsonlFeeder the text readers use; Claude Code's
 *   records dumped as one array go element by element (jsonArrayStream.ts) to
 *   the same sink, through the RecordArrayFeeder its text reader uses;
 * - a ChatGPT, Claude.ai or Open WebUI export array is split into its
 *   elements (jsonArrayStream.ts), each parsed by JSON.parse and handed to the
 *   same converter the text reader uses, then dropped;
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

function recordArrayConsumer(format: FormatId, factory: JsonlSinkFactory, opts: ImportOptions): Consumer {
  const feeder = new RecordArrayFeeder(format, factory, opts);
  return { push: (chunk) => feeder.push(chunk), finish: (hash) => feeder.finish(hash) };
}

function arrayConsumer(collector: ArrayCollector, format: FormatId): Consumer {
  const elements = new JsonArrayStream((value) => collector.add(value), format);
  return {
    push: (chunk) => elements.push(chunk),
    finish: (hash) => {
      elements.end();
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
  if (sink && format === 'claude-code' && isClaudeCodeArray(head)) return recordArrayConsumer(format, sink, opts);
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
