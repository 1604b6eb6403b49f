import type { SessionSnapshot } from '@/lib/session/types';
import type { FormatId, ImportOptions, ImportResult } from '../types';

/** What a chat-app reader carries from conversation to conversation. */
export interface ReaderContext {
  fileName?: string;
  importedAt?: number;
  warnings: string[];
}

interface CollectorKind {
  format: FormatId;
  /** Converts one element of the export's array; null for one with nothing to import (counted as skipped). */
  convert: (element: unknown, index: number, ctx: ReaderContext) => SessionSnapshot | null;
  /** What the export calls its elements, for warnings and skip counts: ['conversation', 'conversations']. */
  noun: [one: string, many: string];
}

/**
 * Collects the conversations of a chat app's export (ChatGPT, Claude.ai,
 * Open WebUI): one element of the array at a time, so the text reader and the
 * streaming one share it, and a streamed import can take what is converted
 * while the file is still being read.
 */
export class ConversationCollector {
  readonly ctx: ReaderContext;
  private sessions: SessionSnapshot[] = [];
  private seen = 0;
  private empty = 0;

  constructor(
    opts: ImportOptions,
    private readonly kind: CollectorKind,
  ) {
    this.ctx = { fileName: opts.fileName, importedAt: opts.importedAt, warnings: [] };
  }

  add(element: unknown): void {
    const s = this.kind.convert(element, this.seen++, this.ctx);
    if (s) this.sessions.push(s);
    else this.empty++;
  }

  /** Hands over the sessions converted so far; they get the file's hash from the caller. */
  take(): SessionSnapshot[] {
    const out = this.sessions;
    this.sessions = [];
    return out;
  }

  finish(hash: string): ImportResult {
    const [one, many] = this.kind.noun;
    for (const s of this.sessions) if (s.meta.source) s.meta.source.hash = hash;
    if (this.seen === 0) this.ctx.warnings.push(`The export holds no ${many}.`);
    const skipped = this.empty > 0 ? [{ count: this.empty, one: `empty ${one}`, many: `empty ${many}` }] : [];
    return { format: this.kind.format, sessions: this.sessions, warnings: this.ctx.warnings, skipped };
  }
}
