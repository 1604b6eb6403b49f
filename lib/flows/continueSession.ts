import { summarizeBranch } from '@/lib/branch/summarize';
import { errorMessage } from '@/lib/errors';
import { buildSessionContext } from '@/lib/session/context';
import { newId } from '@/lib/session/ids';
import type { ContinuedFrom, EntryId, SessionEntry, SessionSnapshot, StoredSession, SummaryDetails } from '@/lib/session/types';
import type { FlowPorts, SessionStore } from './ports';
import type { SessionHandle } from './session';
import { runSummaryJob, summaryEngine, summaryPlanOptions, summaryChecks } from './summaryPipeline';

/**
 * "Continue in new session" from any entry: the conversation up to that entry
 * is summarised (by the summarizer model, or the extractive summary without
 * one), the user reviews and edits the summary, and only then a new session
 * is created whose first entry is that summary, linked back to the source
 * session and entry (SessionMeta.continuedFrom).
 *
 * The summary is stored as a compaction at the root that keeps nothing before
 * it: the model reads it as the history of this conversation, and the
 * timeline can show, edit, regenerate or undo it like any other summary. When
 * the user changed the draft, the model's text stays as the original and the
 * user's version is an `edit` revision on top, as for any edited summary.
 */

export interface ContinuationDraft {
  sourceSessionId: string;
  sourceTitle: string;
  entryId: EntryId;
  /** Title proposed for the new session. */
  title: string;
  summary: string;
  details: SummaryDetails;
  /** Tokens of what was summarised. */
  tokensBefore: number;
  /** The model in effect at the entry, and the source's settings the new session takes over. */
  model?: string;
  link: ContinuedFrom;
}

/** Summarises the path up to `entryId` in a cancellable run. Null when cancelled, failed or empty (the user was told). */
export async function draftContinuation(s: SessionHandle, entryId: EntryId): Promise<ContinuationDraft | null> {
  const { ports } = s;
  const tree = s.live.getSnapshot().tree;
  if (!tree.has(entryId)) {
    ports.notify.error('That message is not in this session any more.');
    return null;
  }
  const row = await ports.store.getSession(s.sessionId);
  if (!row) {
    ports.notify.error('The session no longer exists.');
    return null;
  }
  return runSummaryJob(s, {
    kind: 'continuation',
    status: 'Summarising the conversation up to here for a new session…',
    what: 'Summary for the new session',
    parentId: entryId,
    async execute({ signal, onDelta }) {
      const env = s.env();
      const path = tree.pathTo(entryId);
      const budget = env.summarizer ? env.summarizer.contextWindow - env.settings.reserveTokens : 0;
      const plan = summaryPlanOptions(env);
      const prepared = await ports.tokens.prepareBranchSummary([...path], { budget, purpose: 'continuation', ...(plan ? { plan } : {}) });
      if (!prepared) {
        ports.notify.info('There is nothing to summarise up to that point.');
        return null;
      }
      const result = await summarizeBranch(prepared.prep, summaryEngine(s, prepared.plan), { signal, onDelta, purpose: 'continuation', ...summaryChecks(s) });
      if (!result) {
        ports.notify.info('A summary hook cancelled the summary; nothing changed.');
        return null;
      }
      // The first summarised entry is one of the source's; in the new session it would point nowhere.
      const { firstSummarizedEntryId: _elsewhere, ...details } = result.details;
      const link: ContinuedFrom = { sessionId: row.id, entryId, title: row.title };
      if (row.source?.hash) link.origin = { hash: row.source.hash, ...(row.source.originalId !== undefined ? { originalId: row.source.originalId } : {}) };
      const model = buildSessionContext(tree, entryId).model ?? row.model;
      return {
        sourceSessionId: row.id,
        sourceTitle: row.title,
        entryId,
        title: `${row.title} (continued)`,
        summary: result.summary,
        details: { ...details, tokensSummarized: prepared.prep.tokens },
        tokensBefore: prepared.prep.tokens,
        ...(model ? { model } : {}),
        link,
      };
    },
  });
}

/** The new session as it will be stored: the summary as its root, the user's edit on top when there is one. */
export function continuationSnapshot(draft: ContinuationDraft, edited: { summary: string; title: string }, source: StoredSession | undefined, now: number): SessionSnapshot {
  const rootId = newId();
  const entries: SessionEntry[] = [
    { id: rootId, parentId: null, timestamp: now, type: 'compaction', summary: draft.summary, firstKeptEntryId: rootId, tokensBefore: draft.tokensBefore, details: draft.details },
  ];
  const text = edited.summary.trim();
  if (text !== draft.summary.trim()) entries.push({ id: newId(), parentId: rootId, timestamp: now, type: 'summary_revision', targetId: rootId, action: 'edit', summary: text });
  const model = draft.model ?? source?.model;
  return {
    meta: {
      id: newId(),
      title: edited.title.trim() || draft.title,
      createdAt: now,
      updatedAt: now,
      leafId: entries[entries.length - 1]!.id,
      ...(model ? { model } : {}),
      ...(source?.systemPrompt ? { systemPrompt: source.systemPrompt } : {}),
      ...(source?.compaction ? { compaction: source.compaction } : {}),
      ...(source?.cwd ? { cwd: source.cwd } : {}),
      continuedFrom: draft.link,
    },
    entries,
  };
}

/** Creates the new session from the reviewed draft, in one transaction. Resolves with its id, or null (the user was told why). */
export async function startContinuation(ports: FlowPorts, draft: ContinuationDraft, edited: { summary: string; title: string }): Promise<string | null> {
  if (!edited.summary.trim()) {
    ports.notify.error('The summary is empty: the new session would start with nothing. Write what it should know, or cancel.');
    return null;
  }
  try {
    const source = await ports.store.getSession(draft.sourceSessionId);
    const snapshot = continuationSnapshot(draft, edited, source, ports.now?.() ?? Date.now());
    const { imported } = await ports.store.importSnapshots([snapshot], { allowDuplicates: true });
    ports.notify.success(`Started “${imported[0]!.title}” from “${draft.sourceTitle}”`);
    return imported[0]!.id;
  } catch (err) {
    ports.notify.error(`Could not start the new session: ${errorMessage(err)}`);
    return null;
  }
}

/**
 * The session a continued one came from, wherever it is now: the same id, or
 * (after an export and import) the session that remembers that id as its
 * original, or the one imported from the same file as the source was.
 */
export async function findContinuationSource(store: SessionStore, link: ContinuedFrom): Promise<StoredSession | undefined> {
  const direct = await store.getSession(link.sessionId);
  if (direct) return direct;
  const all = await store.listSessions();
  const byId = all.find((r) => r.source?.originalId === link.sessionId);
  if (byId) return byId;
  const origin = link.origin;
  return origin ? all.find((r) => r.source?.hash === origin.hash && (r.source.originalId ?? '') === (origin.originalId ?? '')) : undefined;
}
