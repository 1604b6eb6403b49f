import { compact, compactionEntryFrom } from '@/lib/compaction/compact';
import { FLAW_TEXT } from '@/lib/compaction/summaryCheck';
import { compactionLimit, compactionVerdict, emergencyKeepRecent, reviewLimit, shouldCompact, wouldOverflow, type CompactionVerdict } from '@/lib/compaction/policy';
import type { KeepRecent } from '@/lib/compaction/keepRecent';
import type { CompactionPreview } from '@/lib/compaction/prepare';
import { noCompactionMessage } from '@/lib/compaction/reasons';
import { FALLBACK_CONTEXT_WINDOW } from '@/lib/providers/catalog';
import { usageOverflow } from '@/lib/providers/overflow';
import { formatCount } from '@/lib/format/numbers';
import type { EntryId, UserContent } from '@/lib/session/types';
import type { Run } from './runs';
import type { SessionEnv, SessionHandle } from './session';
import { maskToolOutput } from './masking';
import { applyDueDraft, applyPendingSummary, dropSupersededDraft, inEffectAt } from './pendingSummary';
import { placePending } from '@/lib/compaction/pending';
import { newId } from '@/lib/session/ids';
import { runSummaryJob, summaryEngine, summaryPlanOptions, syncTarget, syncTokens, summaryChecks } from './summaryPipeline';

export type CompactReason = 'manual' | 'auto' | 'overflow' | 'truncated' | 'before-send';

export interface CompactRequest {
  reason: CompactReason;
  instructions?: string;
  keepRecentTokens?: number;
  /** Keep this many recent turns instead (the Compact dialog's "Keep recent" in turns); wins over keepRecentTokens. */
  keepRecentTurns?: number;
  force?: boolean;
  /** A run already on screen for this session (overflow recovery inside a reply) to report progress on. */
  run?: Run;
  /** Compact the path ending here (default: this tab's leaf now). */
  leafId?: EntryId | null;
  /**
   * Review before apply: prepare the summary and store it for the user to
   * apply, edit or discard (lib/flows/pendingSummary.ts) instead of appending it.
   */
  review?: boolean;
}

const REVIEW_LABEL = 'Context is nearly full — preparing a summary for you to review…';

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
  const leafId = req.leafId === undefined ? s.live.getSnapshot().leafId : req.leafId;
  return runSummaryJob(s, {
    kind: 'compaction',
    status: req.review ? REVIEW_LABEL : REASON_LABEL[req.reason],
    what: 'Compaction',
    parentId: leafId,
    ...(req.run ? { run: req.run } : {}),
    async execute({ signal, onDelta }) {
      const env = s.env();
      const plan = summaryPlanOptions(env, req.instructions);
      const target = syncTarget(s, leafId);
      // The entry is appended under `leafId` even if the view moved on.
      const opts = {
        ...keepRecentOptions(req),
        ...(req.force ? { force: true } : {}),
        ...(env.chatModel ? { window: env.chatModel.contextWindow } : {}),
      };
      // Prepared on exactly that path; when there is nothing to do, the preview of the same path says why.
      const prepared = await s.sync.pinned(target.path, target.opts, async () => {
        const p = await ports.tokens.prepareCompaction(s.sessionId, env.settings, { ...opts, ...(plan ? { plan } : {}) });
        return p ?? { why: await ports.tokens.previewCompaction(s.sessionId, env.settings, opts) };
      });
      if ('why' in prepared) {
        if (prepared.why.ok) return null;
        const limit = autoCompactLimit(env);
        const message = noCompactionMessage({ ...prepared.why, ...(limit !== undefined ? { limit } : {}) });
        // A compaction that was due and cannot help must say so: silence would leave the user over the limit, unaware.
        if (req.reason === 'manual') ports.notify.info(message);
        else if (req.reason !== 'auto' || prepared.why.reason === 'recent-too-large' || (limit !== undefined && prepared.why.tokensBefore > limit)) ports.notify.warning(message);
        return null;
      }
      const { prep } = prepared;
      const window = env.chatModel?.contextWindow;
      // When the kept tail alone is as large as the context, no summary can help: do not spend a summarizer call.
      // Pinned messages stay in the context with the kept tail: they count on the "after" side.
      const tokensKept = prep.tokensKept + prep.tokensPinned;
      const early = compactionVerdict({ tokensBefore: prep.tokensBefore, tokensKept, summaryTokens: 0, window });
      if (!early.append) {
        ports.notify.warning(notSmallerMessage(early, prep.tokensBefore, tokensKept, window, true));
        return null;
      }
      const engine = summaryEngine(s, prepared.plan);
      const result = await compact(prep, engine, { signal, onDelta, ...summaryChecks(s) });
      if (!result) {
        ports.notify.info('A compaction hook cancelled this compaction.');
        return null;
      }
      if (signal.aborted) throw new DOMException('Aborted', 'AbortError');
      // Counted on the path it was prepared on: "after" is what the meter shows once the entry is appended.
      const { summaryTokens, after } = await s.sync.pinned(target.path, target.opts, async () => ({
        summaryTokens: await ports.tokens.summaryTokens(s.sessionId, result.summary),
        after: await ports.tokens.contextAfterCompaction(s.sessionId, result.summary, result.keepsNothing ? null : result.firstKeptEntryId),
      }));
      // Everything but the kept tail (the summary, the system prompt) counts as the summary's side here.
      const verdict = compactionVerdict({ tokensBefore: result.tokensBefore, tokensKept, summaryTokens: after - tokensKept, window });
      if (!verdict.append) {
        ports.notify.warning(notSmallerMessage(verdict, result.tokensBefore, tokensKept, window));
        return null;
      }
      const tokensAfter = Math.round(verdict.tokensAfter);
      if (req.review) {
        // The id is chosen now: a draft applied from two tabs can then be appended only once.
        const entry = compactionEntryFrom(result);
        const draft = { ...entry, id: entry.id ?? newId(), tokensAfter, details: { ...entry.details, summaryTokens } };
        const stored = await ports.store.offerPendingSummary({
          sessionId: s.sessionId,
          entry: draft,
          keepsNothing: result.keepsNothing === true,
          preparedAt: prep.leafId,
          basedOn: inEffectAt(s, prep.leafId),
          createdAt: ports.now?.() ?? Date.now(),
        });
        if (stored.entry.id === draft.id) ports.notify.info('A summary is ready to apply: the conversation goes on uncompacted until you apply it.');
        return null;
      }
      const entry = compactionEntryFrom(result);
      // The summary's own count lets the card follow a regenerated or edited summary (lib/timeline/cardFigures).
      // Appended where it was prepared: if another tab moved on meanwhile, this becomes a sibling, never an overwrite.
      const [created] = await ports.store.appendEntries(s.sessionId, prep.leafId, [{ ...entry, tokensAfter, details: { ...entry.details, summaryTokens } }]);
      s.live.applyLocal([created!], created!.id);
      await dropSupersededDraft(s);
      if (engine.kind === 'extractive' && req.reason === 'manual') ports.notify.info('No model is connected: the summary was written by the built-in extractive summarizer.');
      const fb = result.details.fallback;
      if (fb) ports.notify.warning(`The summary by ${fb.model} was not used (${FLAW_TEXT[fb.reason]}, ${fb.attempts} attempts): the extractive summary stands in, labelled as such.`);
      ports.notify.success(`Compacted: ${formatCount(result.tokensBefore)} → ${formatCount(tokensAfter)} tokens`);
      return created!.id;
    },
  });
}

/** Why a compaction was not appended, with what the user can do about it. */
function notSmallerMessage(v: Extract<CompactionVerdict, { append: false }>, before: number, kept: number, window: number | undefined, beforeSummary = false): string {
  // Before summarising, the figure after is a lower bound: the kept tail alone.
  const after = `${beforeSummary ? 'at least ' : ''}${formatCount(v.tokensAfter)}`;
  const head = `Not compacted: it would not have made the context smaller (${formatCount(before)} → ${after} tokens).`;
  if (v.why === 'kept-exceeds-window')
    return `${head} The recent part kept word for word (${formatCount(kept)} tokens, usually one very long message) is larger than the model's whole window (${formatCount(window ?? 0)}). Shorten or split that message, or switch to a model with a larger window.`;
  return `${head} The summary would be longer than the history it replaces. Lower "Keep recent tokens" so more is summarised, or compact later when there is more history.`;
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
  const over = (tokens: number) => shouldCompact({ contextTokens: tokens, window: chatModel.contextWindow, settings, streaming: false });
  if (!over(figure.tokens)) return;
  // The cheap stage first: masking old tool output may make enough room without any summary.
  if (settings.maskToolOutput && (await maskToolOutput(s, { quiet: true }))) {
    await syncTokens(s);
    const after = s.sync.figure;
    if (after && !over(after.tokens)) return;
  }
  if (settings.reviewBeforeApply) return reviewDue(s, s.sync.figure?.tokens ?? figure.tokens);
  await compactSession(s, { reason: 'auto' });
}

/**
 * Before sending from `leafId`: compact that path first when the new message would not fit.
 * Resolves with the compaction entry (appended under `leafId`) for the message to follow, or null.
 */
export async function compactBeforeSendIfNeeded(s: SessionHandle, content: UserContent[], leafId: EntryId | null): Promise<EntryId | null> {
  const { chatModel, settings } = s.env();
  if (!settings.enabled || !chatModel) return null;
  const target = syncTarget(s, leafId);
  const figure = await s.sync.pinned(target.path, target.opts, async () => s.sync.figure);
  if (!figure) return null;
  const text = content.map((c) => (c.type === 'text' ? c.text : c.type === 'file' ? (c.text ?? '') : '')).join('\n');
  const [newTokens] = await s.ports.tokens.countTexts([text]);
  const fits = (tokens: number) => !wouldOverflow({ contextTokens: tokens, newMessageTokens: newTokens ?? 0, window: chatModel.contextWindow, settings });
  if (fits(figure.tokens)) {
    s.sync.preview(newTokens ?? 0);
    return null;
  }
  // Review before apply: the message goes out uncompacted while it still fits the window (a summary is prepared
  // after the turn); past that, a prepared summary is applied first.
  if (settings.reviewBeforeApply) {
    const hard = reviewLimit(chatModel.contextWindow, settings);
    if (figure.tokens + (newTokens ?? 0) <= hard) {
      s.sync.preview(newTokens ?? 0);
      return null;
    }
    const applied = await applyDueDraft(s, leafId);
    if (applied) {
      const after = syncTarget(s, applied);
      const now = await s.sync.pinned(after.path, after.opts, async () => s.sync.figure);
      if (now && fits(now.tokens)) return applied;
      return (await compactSession(s, { reason: 'before-send', leafId: applied })) ?? applied;
    }
  }
  if (settings.maskToolOutput) {
    const maskId = await maskToolOutput(s, { leafId, quiet: true });
    if (maskId) {
      const masked = syncTarget(s, maskId);
      const after = await s.sync.pinned(masked.path, masked.opts, async () => s.sync.figure);
      if (after && fits(after.tokens)) return maskId;
      // The message must follow the mask either way: it is on the path now.
      return (await compactSession(s, { reason: 'before-send', leafId: maskId })) ?? maskId;
    }
  }
  return compactSession(s, { reason: 'before-send', leafId });
}

/** Overflow recovery: a forced compaction, with a smaller keep-recent, of the path the refused request was built from. Resolves with the new leaf to retry from. */
export function recoverFromOverflow(s: SessionHandle, run: Run): Promise<EntryId | null> {
  const { chatModel, settings } = s.env();
  const window = chatModel?.contextWindow ?? FALLBACK_CONTEXT_WINDOW;
  return compactSession(s, { reason: 'overflow', force: true, keepRecentTokens: emergencyKeepRecent(window, settings), run, leafId: run.parentId });
}

/** The context size above which auto-compaction fires, when a model (and so a window) is known. */
export function autoCompactLimit(env: Pick<SessionEnv, 'settings' | 'chatModel'>): number | undefined {
  return env.chatModel ? compactionLimit(env.chatModel.contextWindow, env.settings) : undefined;
}

function keepRecentOptions(k: { keepRecentTokens?: number; keepRecentTurns?: number }): { keepRecentTokens?: number; keepRecentTurns?: number } {
  if (k.keepRecentTurns !== undefined) return { keepRecentTurns: k.keepRecentTurns };
  return k.keepRecentTokens !== undefined ? { keepRecentTokens: k.keepRecentTokens } : {};
}

/** The Compact dialog's "Keep recent" as a compaction request's fields. */
export function keepRecentRequest(keep: KeepRecent | undefined): Pick<CompactRequest, 'keepRecentTokens' | 'keepRecentTurns'> {
  if (!keep) return {};
  return keep.unit === 'turns' ? { keepRecentTurns: keep.value } : { keepRecentTokens: keep.value };
}

/**
 * What a compaction now would summarise and keep, for the Compact dialog;
 * `keep` is the dialog's "Keep recent" (default: the settings' keep-recent tokens).
 * Computed by the token worker, so the dialog can ask again on every change.
 */
export async function previewCompaction(s: SessionHandle, keep?: KeepRecent): Promise<CompactionPreview> {
  await syncTokens(s);
  const env = s.env();
  return s.ports.tokens.previewCompaction(s.sessionId, env.settings, {
    ...keepRecentOptions(keepRecentRequest(keep)),
    ...(env.chatModel ? { window: env.chatModel.contextWindow } : {}),
  });
}

/**
 * After a turn over the compaction limit, with review on: keep the draft
 * waiting while the context still fits, apply it once it does not, and
 * prepare one when there is none that applies here.
 */
async function reviewDue(s: SessionHandle, contextTokens: number): Promise<void> {
  const { chatModel, settings } = s.env();
  if (!chatModel) return;
  const hard = contextTokens > reviewLimit(chatModel.contextWindow, settings);
  const leafId = s.live.getSnapshot().leafId;
  const pending = await s.ports.store.getPendingSummary(s.sessionId);
  if (pending) {
    if (placePending(s.live.getSnapshot().tree.pathTo(leafId), pending).ok) {
      if (hard) await applyPendingSummary(s, pending.entry.id, { auto: true });
      return;
    }
    // Prepared for another branch or state of the conversation: this path needs its own.
    await s.ports.store.takePendingSummary(s.sessionId, pending.entry.id);
  }
  await compactSession(s, { reason: 'auto', review: true });
  if (!hard) return;
  const prepared = await s.ports.store.getPendingSummary(s.sessionId);
  if (prepared) await applyPendingSummary(s, prepared.entry.id, { auto: true });
}

/** Throws the draft away and prepares a new one on the current path, with focus instructions (a missed item to keep). */
export async function resummarisePending(s: SessionHandle, id: EntryId, instructions: string): Promise<boolean> {
  if (!(await s.ports.store.takePendingSummary(s.sessionId, id))) return false;
  await compactSession(s, { reason: 'manual', review: true, instructions });
  return (await s.ports.store.getPendingSummary(s.sessionId)) !== undefined;
}
