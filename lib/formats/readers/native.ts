import type { z } from 'zod';
import { sessionEntrySchema, sessionMetaSchema } from '@/lib/session/schema';
import { SessionTree } from '@/lib/session/tree';
import type { SessionEntry, SessionMeta, SessionSnapshot } from '@/lib/session/types';
import { parentsFirst } from '../assemble';
import { excerpt } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import type { Json } from '../util';
import { readJsonlText, type JsonlSink, type ReadContext } from './jsonl';

/** The header that starts every native session (see docs/session-format.md). */
export const NATIVE_FORMAT = 'longctx-session';
export const NATIVE_VERSION = 1;

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid';
  const path = issue.path.length ? issue.path.join('.') : '(record)';
  return `${path}: ${issue.message}`;
}

interface Pending {
  meta: SessionMeta;
  entries: SessionEntry[];
  ids: Set<string>;
  headerLine: number;
}

class NativeSink implements JsonlSink {
  private readonly sessions: Pending[] = [];

  constructor(private readonly ctx: ReadContext) {}

  private fail(lineNo: number, problem: string): never {
    throw new ImportError(`Line ${lineNo}: ${problem}`, { format: 'native', line: lineNo });
  }

  record(rec: Json, lineNo: number): void {
    if (rec.type === 'session') {
      if (rec.format !== NATIVE_FORMAT) this.fail(lineNo, `session header of another format (${excerpt(String(rec.format))}), expected "${NATIVE_FORMAT}"`);
      const version = rec.version;
      if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) this.fail(lineNo, `session header without a valid version number`);
      if (version > NATIVE_VERSION) {
        this.fail(lineNo, `written by a newer version of the app (format version ${version}, this app reads up to ${NATIVE_VERSION})`);
      }
      const { type: _t, format: _f, version: _v, ...rest } = rec;
      const parsed = sessionMetaSchema.safeParse(rest);
      if (!parsed.success) this.fail(lineNo, `invalid session header (${firstIssue(parsed.error)})`);
      // The validated original, not zod's copy: it keeps key order (a re-export is byte-identical) and unknown keys.
      this.sessions.push({ meta: rest as unknown as SessionMeta, entries: [], ids: new Set(), headerLine: lineNo });
      return;
    }
    const cur = this.sessions[this.sessions.length - 1];
    if (!cur) this.fail(lineNo, `expected the session header {"type":"session","format":"${NATIVE_FORMAT}",…} before any entry`);
    const parsed = sessionEntrySchema.safeParse(rec);
    if (!parsed.success) {
      const kind = typeof rec.type === 'string' ? `${excerpt(rec.type)} entry` : 'entry';
      this.fail(lineNo, `not a valid ${kind} (${firstIssue(parsed.error)})`);
    }
    const entry = rec as unknown as SessionEntry;
    if (cur.ids.has(entry.id)) this.fail(lineNo, `entry id ${excerpt(entry.id)} is used twice`);
    cur.ids.add(entry.id);
    cur.entries.push(entry);
  }

  finish(): ImportResult {
    const sessions: SessionSnapshot[] = [];
    for (const s of this.sessions) {
      const entries = parentsFirst(s.entries, 'native');
      const meta = s.meta;
      if (meta.leafId !== null && !s.ids.has(meta.leafId)) {
        const fallback = new SessionTree(entries).newestLeaf();
        this.ctx.warnings.push(
          `Session ${excerpt(meta.title, 40)} (line ${s.headerLine}): its current entry ${excerpt(meta.leafId)} is missing; moved to the newest entry instead.`,
        );
        meta.leafId = fallback;
      }
      sessions.push({ meta, entries });
    }
    return { format: 'native', sessions, warnings: this.ctx.warnings };
  }
}

export function nativeSink(ctx: ReadContext): JsonlSink {
  return new NativeSink(ctx);
}

export function readNative(text: string, opts: ImportOptions = {}): ImportResult {
  return readJsonlText(text, 'native', nativeSink, opts);
}
