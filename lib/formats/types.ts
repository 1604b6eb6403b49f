import type { SessionSnapshot } from '@/lib/session/types';

/** The transcript formats the importers read. `native` is the app's own JSONL (docs/session-format.md). */
export type FormatId = 'native' | 'pi' | 'claude-code' | 'codex' | 'gemini-cli' | 'chatgpt' | 'claude-ai' | 'open-webui' | 'lobechat' | 'librechat' | 'swe-agent';

/** What detection can tell apart: a transcript format, or a zip archive of native sessions. */
export type DetectedFormat = FormatId | 'archive';

export const SUPPORTED_FORMATS: readonly { id: DetectedFormat; label: string }[] = [
  { id: 'native', label: 'longctx session (.jsonl)' },
  { id: 'archive', label: 'longctx archive (.zip)' },
  { id: 'pi', label: 'pi coding agent session (.jsonl, v1–v3)' },
  { id: 'claude-code', label: 'Claude Code transcript (.jsonl)' },
  { id: 'codex', label: 'Codex CLI rollout (rollout-*.jsonl)' },
  { id: 'gemini-cli', label: 'Gemini CLI session (session-*.json, .jsonl)' },
  { id: 'chatgpt', label: 'ChatGPT data export (conversations.json)' },
  { id: 'claude-ai', label: 'Claude.ai data export (conversations.json)' },
  { id: 'open-webui', label: 'Open WebUI chat export (.json)' },
  { id: 'lobechat', label: 'LobeChat export (.json)' },
  { id: 'librechat', label: 'LibreChat conversation export (.json)' },
  { id: 'swe-agent', label: 'SWE-agent trajectory (.traj)' },
];

export interface ImportOptions {
  fileName?: string;
  /**
   * When the import runs (ms). A file that records no times gets this instead
   * of an invented date (see EntryAssembler); defaults to the clock.
   */
  importedAt?: number;
}

export interface ImportResult {
  format: FormatId;
  sessions: SessionSnapshot[];
  /** Things that were repaired or left out, in words a user can act on. */
  warnings: string[];
  /** Records of the file left out on purpose (empty conversations…), counted for the result message. */
  skipped?: SkippedCount[];
}

/** `count` records left out, and what they are in the singular and plural ("empty conversation(s)"). */
export interface SkippedCount {
  count: number;
  one: string;
  many: string;
}

/** "2 empty conversations skipped", for messages; empty for none. */
export function skippedText(skipped: readonly SkippedCount[] | undefined): string {
  return (skipped ?? [])
    .filter((s) => s.count > 0)
    .map((s) => `${s.count} ${s.count === 1 ? s.one : s.many} skipped`)
    .join(', ');
}

/**
 * The one error type importers throw. The message is meant for the user and
 * names where the problem is (`Line 12: …` for line formats) and what it is.
 */
export class ImportError extends Error {
  readonly format?: FormatId;
  /** 1-based line of a line-based file (or of the JSON text) where the problem is. */
  readonly line?: number;

  constructor(message: string, opts: { format?: FormatId; line?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'ImportError';
    if (opts.format !== undefined) this.format = opts.format;
    if (opts.line !== undefined) this.line = opts.line;
  }
}

export function supportedFormatsText(): string {
  return SUPPORTED_FORMATS.map((f) => f.label).join('; ');
}
