import type {
  AssistantContent,
  BranchSummaryEntry,
  CompactionEntry,
  EntryId,
  LabelEntry,
  MessageEntry,
  ModelChangeEntry,
  SessionEntry,
  SummaryRevisionEntry,
} from '@/lib/session/types';

/**
 * Builds hand-made session trees for tests. A cursor plays the role of the
 * leaf: each added entry becomes a child of the cursor and the new cursor.
 * Ids are readable (`u1`, `a2`, ...) so failing assertions say where.
 */
export class TreeBuilder {
  readonly entries: SessionEntry[] = [];
  cursor: EntryId | null = null;
  private n = 0;
  private clock = Date.UTC(2026, 0, 1);

  private push<E extends SessionEntry>(e: Omit<E, 'id' | 'parentId' | 'timestamp'>, prefix: string, id?: string): E {
    const entry = { ...e, id: id ?? `${prefix}${++this.n}`, parentId: this.cursor, timestamp: (this.clock += 1000) } as E;
    this.entries.push(entry);
    this.cursor = entry.id;
    return entry;
  }

  at(target: EntryId | SessionEntry | null): this {
    this.cursor = target === null || typeof target === 'string' ? target : target.id;
    return this;
  }

  user(text: string, id?: string) {
    return this.push<MessageEntry>({ type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } }, 'u', id);
  }

  assistant(text: string | AssistantContent[], id?: string, extra: Record<string, unknown> = {}) {
    const content: AssistantContent[] = typeof text === 'string' ? [{ type: 'text', text }] : text;
    return this.push<MessageEntry>({ type: 'message', message: { role: 'assistant', content, ...extra } }, 'a', id);
  }

  toolCall(name: string, args: Record<string, unknown>, callId: string, id?: string) {
    return this.assistant([{ type: 'toolCall', id: callId, name, arguments: args }], id);
  }

  toolResult(callId: string, name: string, text: string, id?: string, isError = false) {
    return this.push<MessageEntry>(
      { type: 'message', message: { role: 'toolResult', toolCallId: callId, toolName: name, content: [{ type: 'text', text }], isError } },
      't',
      id,
    );
  }

  compaction(summary: string, firstKeptEntryId: EntryId, tokensBefore = 1000, id?: string) {
    return this.push<CompactionEntry>(
      { type: 'compaction', summary, firstKeptEntryId, tokensBefore, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } },
      'c',
      id,
    );
  }

  branchSummary(summary: string, fromId: EntryId, id?: string) {
    return this.push<BranchSummaryEntry>(
      { type: 'branch_summary', summary, fromId, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } },
      'b',
      id,
    );
  }

  revision(targetId: EntryId, action: SummaryRevisionEntry['action'], summary?: string, id?: string) {
    return this.push<SummaryRevisionEntry>({ type: 'summary_revision', targetId, action, ...(summary !== undefined ? { summary } : {}) }, 'r', id);
  }

  modelChange(model: string, id?: string) {
    return this.push<ModelChangeEntry>({ type: 'model_change', model }, 'm', id);
  }

  label(targetId: EntryId, label: string | null, id?: string) {
    return this.push<LabelEntry>({ type: 'label', targetId, label }, 'l', id);
  }
}

/** Token count = text length (a summary counts its text, a tool call 10), so budgets in a test can be read off its data. */
export function textLengthTokens(e: SessionEntry): number {
  if (e.type === 'compaction' || e.type === 'branch_summary') return e.summary.length;
  if (e.type !== 'message') return 0;
  let n = 0;
  for (const p of e.message.content) {
    if (p.type === 'text') n += p.text.length;
    else if (p.type === 'toolCall') n += 10;
  }
  return n;
}
