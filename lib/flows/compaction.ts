import { compact, compactionEntryFrom } from '@/lib/compaction/compact';
import { compactionLimit, emergencyKeepRecent, shouldCompact, wouldOverflow } from '@/lib/compaction/policy';
import type { CompactionPreview } from '@/lib/compaction/prepare';
import { FALLBACK_CONTEXT_WINDOW } from '@/lib/providers/catalog';
import { usageOverflow } from '@/lib/providers/overflow';
import { formatCount } from '@/lib/format/numbers';
import type { EntryId, UserContent } from '@/lib/session/types';
import type { Run } from './runs';
import type { SessionEnv, SessionHandle } from './session';
import { runSummaryJob, summaryEngine, summaryPlanOptions, syncTokens } from './summaryPipeline';

export type CompactReason = 'manual' | 'auto' | 'overflow' | 'truncated' | 'before-send';

export interface CompactRequest {
  reason: CompactReason;
  instructions?: string;
  keepRecentTokens?: number;
  force?: boolean;
  /** A run already on screen for this session (overflow recovery inside a reply) to report progress on. */
  run?: Run;
}

const REASON_LABEL: Record<CompactReason, string> = {
  manual: 'Compacting…',
  auto: 'Context is nearly full — compacting…',
  'before-send': 'The new message would not fit — compacting first…',
  overflow: 'The provider said the context is too long — compacting, then retrying…',
  truncated: 'The last prompt filled the whole window — compacting…',
};

/**
 * Compacts the session at this tab's leaf: prepare and plan in the worker,
 * stream the summary (model or extractive), append the compaction entry only
 * when the summary completed. Abort or failure leaves the session as it was.
 * Resolves with the new entry's id, or null when nothing was appended.
 */
export function compactSession(s: SessionHandle, req: CompactRequest): Promise<EntryId | null> {
  const { ports } = s;
  return runSummaryJob(s, {
    kind: 'compaction',
    status: REASON_LABEL[req.reason],
    what: 'Compaction',
    parentId: s.live.getSnapshot().leafId,
    ...(req.run ? { run: req.run } : {}),
    async execute({ signal, onDelta }) {
      await syncTokens(s);
      const env = s.env();
      const plan = summaryPlanOptions(env, req.instructions);
      const prepared = await ports.tokens.prepareCompaction(s.sessionId, env.settings, {
        ...(req.keepRecentTokens !== undefined ? { keepRecentTokens: req.keepRecentTokens } : {}),
        ...(req.force ? { force: true } : {}),
        ...(env.chatModel ? { window: env.chatModel.contextWindow } : {}),
        ...(plan ? { plan } : {}),
      });
      if (!prepared) {
        if (req.reason === 'manual') ports.notify.info('Nothing to compact yet: everything fits in the recent context that is kept verbatim.');
        return null;
      }
      const { prep } = prepared;
      const engine = summaryEngine(s, prepared.plan);
      const result = await compact(prep, engine, { signal, onDelta });
      if (!result) {
        ports.notify.info('A compaction hook cancelled this compaction.');
        return null;
      }
      if (signal.aborted) throw new DOMException('Aborted', 'AbortError');
      const summaryTokens = await ports.tokens.summaryTokens(s.sessionId, result.summary);
      const tokensAfter = Math.round(summaryTokens + prep.tokensKept);
      // Appended where it was prepared: if another tab moved on meanwhile, this becomes a sibling, never an overwrite.
      const [created] = await ports.store.appendEntries(s.sessionId, prep.leafId, [{ ...compactionEntryFrom(result), tokensAfter }]);
      s.live.applyLocal([created!], created!.id);
      if (engine.kind === 'extractive' && req.reason === 'manual') ports.notify.info('No model is connected: the summary was written by the built-in extractive summarizer.');
      ports.notify.success(`Compacted: ${formatCount(result.tokensBefore)} → ${formatCount(tokensAfter)} tokens`);
      return created!.id;
    },
  });
}

/**
 * After a turn: compact when the context passed window − reserve (or the
 * percentage threshold). A reply whose reported input filled the whole window
 * means the server silently dropped part of the prompt (Ollama and some
 * proxies truncate instead of failing): that gets the emergency compaction an
 * overflow error would.
 */
export async function autoCompactIfNeeded(s: SessionHandle): Promise<void> {
  const { chatModel, settings } = s.env();
  if (!chatModel) return;
  await syncTokens(s);
  const snap = s.live.getSnapshot();
  const leaf = snap.leafId ? snap.tree.get(snap.leafId) : undefined;
  const usage = leaf?.type === 'message' && leaf.message.role === 'assistant' ? leaf.message.usage : undefined;
  const reportedInput = usage ? usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0) : undefined;
  if (usageOverflow(reportedInput, chatModel.contextWindow)) {
    s.ports.notify.warning('The provider reported a prompt as large as the whole window: part of the conversation was probably cut. Compacting.');
    await compactSession(s, { reason: 'truncated', force: true, keepRecentTokens: emergencyKeepRecent(chatModel.contextWindow, settings) });
    return;
  }
  if (!settings.enabled) return;
  const figure = s.sync.figure;
  if (!figure) return;
  if (shouldCompact({ contextTokens: figure.tokens, window: chatModel.contextWindow, settings, streaming: false })) {
    await compactSession(s, { reason: 'auto' });
  }
}

/** Before sending: compact first when the new message would not fit. */
export async function compactBeforeSendIfNeeded(s: SessionHandle, content: UserContent[]): Promise<void> {
  const { chatModel, settings } = s.env();
  if (!settings.enabled || !chatModel) return;
  await syncTokens(s);
  const figure = s.sync.figure;
  if (!figure) return;
  const text = content.map((c) => (c.type === 'text' ? c.text : c.type === 'file' ? (c.text ?? '') : '')).join('\n');
  const [newTokens] = await s.ports.tokens.countTexts([text]);
  if (wouldOverflow({ contextTokens: figure.tokens, newMessageTokens: newTokens ?? 0, window: chatModel.contextWindow, settings })) {
    await compactSession(s, { reason: 'before-send' });
  }
}

/** Overflow recovery: a forced compaction with a smaller keep-recent. Resolves with the new leaf to retry from. */
export function recoverFromOverflow(s: SessionHandle, run: Run): Promise<EntryId | null> {
  const { chatModel, settings } = s.env();
  const window = chatModel?.contextWindow ?? FALLBACK_CONTEXT_WINDOW;
  return compactSession(s, { reason: 'overflow', force: true, keepRecentTokens: emergencyKeepRecent(window, settings), run });
}

/** The context size above which auto-compaction fires, when a model (and so a window) is known. */
export function autoCompactLimit(env: Pick<SessionEnv, 'settings' | 'chatModel'>): number | undefined {
  return env.chatModel ? compactionLimit(env.chatModel.contextWindow, env.settings) : undefined;
}

/** What a compaction now would summarise and keep, for the Compact dialog. */
export async function previewCompaction(s: SessionHandle): Promise<CompactionPreview> {
  await syncTokens(s);
  const env = s.env();
  return s.ports.tokens.previewCompaction(s.sessionId, env.settings, env.chatModel ? { window: env.chatModel.contextWindow } : {});
}
