import { ImportError, supportedFormatsText, type DetectedFormat } from './types';

/**
 * Format detection from the file name and the first ~64 KB of text.
 *
 * The head is scanned structurally (strings, escapes, nesting), not with
 * regular expressions, so a key name that happens to occur inside a message
 * cannot fool it. What it learns: whether the text is one JSON document or
 * JSON lines, and the top-level keys of the first record (or of the first
 * element of a top-level array) with their simple values.
 */

export const DETECT_HEAD_CHARS = 64 * 1024;

export interface HeadShape {
  kind: 'object' | 'array' | 'other' | 'empty';
  /** Keys of the first object (or the first array element) → primitive value, or undefined for nested values. */
  keys: Map<string, string | number | boolean | null | undefined>;
  /** The first value ended before the head did. */
  complete: boolean;
  /** A raw line break inside the first value: a pretty-printed document, not JSON lines. */
  multiline: boolean;
  /** After the first value, another line starts with `{`: JSON lines. */
  moreLines: boolean;
}

const ZIP_MAGIC = 'PK\u0003\u0004';

function skipSpace(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0xfeff) i++;
    else break;
  }
  return i;
}

/** Reads a JSON string starting at the quote at `i`; returns its value and the index after it (or null if cut off). */
function readString(s: string, i: number): { value: string | undefined; end: number } | null {
  let j = i + 1;
  while (j < s.length) {
    const c = s.charCodeAt(j);
    if (c === 0x5c) j += 2;
    else if (c === 0x22) {
      let value: string | undefined;
      try {
        value = JSON.parse(s.slice(i, j + 1)) as string;
      } catch {
        value = undefined;
      }
      return { value, end: j + 1 };
    } else j++;
  }
  return null;
}

export function scanHead(head: string): HeadShape {
  const keys: HeadShape['keys'] = new Map();
  let i = skipSpace(head, 0);
  if (i >= head.length) return { kind: 'empty', keys, complete: true, multiline: false, moreLines: false };
  const first = head[i];
  if (first !== '{' && first !== '[') return { kind: 'other', keys, complete: false, multiline: false, moreLines: false };
  const kind = first === '{' ? 'object' : 'array';
  // Keys are collected at the depth of the record: 1 for an object, 2 for the first element of an array.
  const keyDepth = kind === 'object' ? 1 : 2;
  let depth = 0;
  let multiline = false;
  let expectKey = false;
  let pendingKey: string | undefined;
  let collecting = true;
  for (; i < head.length; i++) {
    const c = head[i]!;
    if (c === '"') {
      const r = readString(head, i);
      if (!r) break;
      if (collecting && depth === keyDepth) {
        if (expectKey) {
          pendingKey = r.value;
          expectKey = false;
        } else if (pendingKey !== undefined) {
          keys.set(pendingKey, r.value);
          pendingKey = undefined;
        }
      }
      i = r.end - 1;
      continue;
    }
    if (c === '{' || c === '[') {
      if (collecting && depth === keyDepth && pendingKey !== undefined) {
        keys.set(pendingKey, undefined);
        pendingKey = undefined;
      }
      depth++;
      if (c === '{' && depth === keyDepth) expectKey = true;
      continue;
    }
    if (c === '}' || c === ']') {
      depth--;
      if (depth === keyDepth - 1 && kind === 'array') collecting = false;
      if (depth === 0) {
        const rest = head.slice(i + 1);
        const nl = rest.indexOf('\n');
        const moreLines = nl !== -1 && rest.slice(0, nl).trim() === '' && rest.slice(nl).trimStart().startsWith('{');
        return { kind, keys, complete: true, multiline, moreLines };
      }
      continue;
    }
    if (c === '\n') {
      if (depth > 0) multiline = true;
      continue;
    }
    if (collecting && depth === keyDepth) {
      if (c === ',') expectKey = true;
      else if (pendingKey !== undefined && c !== ':' && c !== ' ' && c !== '\t' && c !== '\r') {
        // A number, true, false or null value.
        let j = i;
        while (j < head.length && /[^\s,}\]]/.test(head[j]!)) j++;
        const raw = head.slice(i, j);
        let v: string | number | boolean | null | undefined;
        try {
          v = JSON.parse(raw) as number | boolean | null;
        } catch {
          v = undefined;
        }
        keys.set(pendingKey, v);
        pendingKey = undefined;
        i = j - 1;
      }
    }
  }
  return { kind, keys, complete: false, multiline, moreLines: false };
}

function has(shape: HeadShape, ...names: string[]): boolean {
  return names.every((n) => shape.keys.has(n));
}

/** The envelope types of a Codex rollout line (`{timestamp, type, payload}`). */
const CODEX_LINES = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);

function classifyRecord(shape: HeadShape): DetectedFormat | undefined {
  const type = shape.keys.get('type');
  if (type === 'session') return shape.keys.get('format') === 'longctx-session' ? 'native' : 'pi';
  if (typeof type === 'string' && CODEX_LINES.has(type) && has(shape, 'payload')) return 'codex';
  if (has(shape, 'sessionId', 'projectHash')) return 'gemini-cli';
  if (has(shape, 'uuid') || has(shape, 'parentUuid') || has(shape, 'leafUuid') || (has(shape, 'sessionId') && typeof type === 'string')) return 'claude-code';
  return undefined;
}

function classifyDocument(shape: HeadShape): DetectedFormat | undefined {
  if (has(shape, 'mapping') || has(shape, 'current_node') || (has(shape, 'title') && has(shape, 'create_time'))) return 'chatgpt';
  if (has(shape, 'chat_messages')) return 'claude-ai';
  if (has(shape, 'messages') && (has(shape, 'conversationId') || has(shape, 'endpoint'))) return 'librechat';
  if (has(shape, 'history') && (has(shape, 'trajectory') || has(shape, 'info') || has(shape, 'environment'))) return 'swe-agent';
  // An Open WebUI export item wraps the chat; a chat from its database is bare (a history tree beside the model list).
  if (has(shape, 'chat', 'title') || (has(shape, 'history') && (has(shape, 'models') || has(shape, 'currentId')))) return 'open-webui';
  if (has(shape, 'exportType') || (has(shape, 'state') && has(shape, 'version'))) return 'lobechat';
  return undefined;
}

/**
 * A Claude Code record opening an array: the transcript's lines dumped as one
 * JSON document (a Stop hook's `chat.json`). Its `type` must be one Claude Code
 * writes, so that an export array whose elements carry a `uuid` (Claude.ai's
 * conversations) is never taken for one. A file-history snapshot names no
 * session, but newer transcripts open with one.
 */
const CLAUDE_CODE_TYPES = new Set(['user', 'assistant', 'system', 'summary']);

function isClaudeCodeArray(shape: HeadShape): boolean {
  const type = shape.keys.get('type');
  if (type === 'file-history-snapshot') return has(shape, 'messageId', 'snapshot');
  return typeof type === 'string' && CLAUDE_CODE_TYPES.has(type) && classifyRecord(shape) === 'claude-code';
}

/** Claude Code files may open with bookkeeping lines (file-history-snapshot) that name no session. */
function classifyLaterLines(head: string): DetectedFormat | undefined {
  const lines = head.split('\n');
  // The last line of the head may be cut off; scanHead copes with that.
  for (let i = 1; i < Math.min(lines.length, 50); i++) {
    const line = lines[i]!;
    if (line.trim() === '') continue;
    const found = classifyRecord(scanHead(line));
    if (found) return found;
  }
  return undefined;
}

/**
 * The format of a file, from its name and its first ~64 KB. Throws an
 * ImportError listing the supported formats when nothing matches.
 */
export function detectFormat(head: string, fileName?: string): DetectedFormat {
  const lower = (fileName ?? '').toLowerCase();
  if (head.startsWith(ZIP_MAGIC)) return 'archive';
  const shape = scanHead(head.slice(0, DETECT_HEAD_CHARS));
  if (shape.kind === 'empty') throw new ImportError('The file is empty.');
  if (shape.kind === 'array') {
    const doc = classifyDocument(shape);
    if (doc === 'chatgpt' || doc === 'librechat' || doc === 'claude-ai' || doc === 'open-webui') return doc;
    if (!doc && isClaudeCodeArray(shape)) return 'claude-code';
    // An empty array is what ChatGPT exports for an account without conversations.
    if (shape.complete && /^[\s\uFEFF]*\[\s*\][\s]*$/.test(head)) return 'chatgpt';
  } else if (shape.kind === 'object') {
    const record = classifyRecord(shape) ?? (shape.moreLines ? classifyLaterLines(head) : undefined);
    const doc = classifyDocument(shape);
    if (record && (shape.moreLines || !doc)) return record;
    if (doc) return doc;
    if (lower.endsWith('.traj')) return 'swe-agent';
    // Rollouts written before Codex put each line in an envelope open with a bare `{id, timestamp, instructions}`.
    if (/(^|[\\/])rollout-[^\\/]*\.jsonl$/.test(lower) && has(shape, 'id', 'timestamp')) return 'codex';
  }
  if (lower.endsWith('.zip')) return 'archive';
  throw new ImportError(`This file is not in a format the app can import${fileName ? ` (${fileName})` : ''}. Supported formats: ${supportedFormatsText()}.`);
}
