'use client';

import { toast } from 'sonner';
import { appendEntries } from '@/lib/db';
import { compact, compactionEntryFrom } from '@/lib/compaction/compact';
import { compactionLimit, compactionVerdict, emergencyKeepRecent, shouldCompact, wouldOverflow, type CompactionVerdict } from '@/lib/compaction/policy';
import { isAbortError } from '@/lib/compaction/summarizer';
import type { CompactionHooks } from '@/lib/compaction/types';
import type { ModelInfo } from '@/lib/providers/listing';
import { usageOverflow } from '@/lib/providers/overflow';
import type { CompactionSettings, EntryId, UserContent } from '@/lib/session/types';
import { formatTokens } from '@/components/common/format';
import type { LiveSession } from '@/components/session/liveSession';
import type { TokenSync } from '@/components/session/tokenSync';
import { useRuns, type Run } from '@/components/chat/runStore';
import { streamToRun, summaryEngine, summaryPlanOptions } from './summaryRun';
import { getTokensClient } from '@/workers/tokensClient';

/** Everything compaction needs to know about a session right now; refreshed by the session view on each render. */
export interface CompactionEnv {
  sessionId: string;
  live: LiveSession;
  sync: TokenSync;
  chatModel?: ModelInfo;
  /** The model that writes summaries (settings, else the server's SUMMARIZER_MODEL, else the chat model); none → extractive. */
  summarizer?: ModelInfo;
  settings: CompactionSettings;
  systemPrompt?: string;
}

export type CompactReason = 'manual' | 'auto' | 'overflow' | 'truncated' | 'before-send';

export interface CompactRequest {
  reason: CompactReason;
  instructions?: string;
  keepRecentTokens?: number;
  force?: boolean;
  /** A run already on screen for this session (overflow recovery inside a reply) to report progress on. */
  run?: Run;
  /** Compact the path ending here (default: this tab's leaf now). */
  leafId?: EntryId | null;
}

/** Extension point: hooks that can cancel a compaction or supply its summary (see lib/compaction/types.ts). */
const registeredHooks: CompactionHooks[] = [];
export function registerCompactionHooks(h: CompactionHooks): () => void {
  registeredHooks.push(h);
  return () => registeredHooks.splice(registeredHooks.indexOf(h), 1);
}

const REASON_LABEL: Record<CompactReason, string> = {
  manual: 'Compacting…',
  auto: 'Context is nearly full — compacting…',
  'before-send': 'The new message would not fit — compacting first…',
  overflow: 'The provider said the context is too long — compacting, then retrying…',
  truncated: 'The last prompt filled the whole window — compacting…',
};

/** The path ending at `leafId` (default: the tab's leaf now) and the options the worker counts it with. */
function syncTarget(env: CompactionEnv, leafId?: EntryId | null) {
  const snap = env.live.getSnapshot();
  const path = snap.tree.pathTo(leafId === undefined ? snap.leafId : leafId);
  const model = env.chatModel?.id ?? env.summarizer?.id ?? 'openai:gpt-4o';
  return { path, opts: { model, contextWindow: env.chatModel?.contextWindow, systemPrompt: env.systemPrompt } };
}

/** Brings the token worker up to date with the tab's current path, so decisions use fresh figures. */
export async function syncNow(env: CompactionEnv) {
  const { path, opts } = syncTarget(env);
  await env.sync.sync(path, opts);
}

/**
 * Compacts the session at this tab's leaf: prepare and plan in the worker,
 * stream the summary (model or extractive), append the compaction entry only
 * when the summary completed. Abort or failure leaves the session as it was.
 * Resolves with the new entry's id, or null when nothing was appended.
 */
export async function compactSession(env: CompactionEnv, req: CompactRequest): Promise<EntryId | null> {
  const runs = useRuns.getState();
  const leafId = req.leafId === undefined ? env.live.getSnapshot().leafId : req.leafId;
  const run = req.run ?? runs.start({ sessionId: env.sessionId, kind: 'compaction', parentId: leafId, abort: new AbortController(), status: REASON_LABEL[req.reason] });
  if (req.run) runs.patch(env.sessionId, { status: REASON_LABEL[req.reason] });
  const signal = run.abort.signal;
  try {
    const { settings, chatModel } = env;
    const plan = summaryPlanOptions(env, req.instructions);
    const target = syncTarget(env, leafId);
    // Prepared on exactly that path, so the entry is appended under `leafId` even if the view moved on.
    const prepared = await env.sync.pinned(target.path, target.opts, () =>
      getTokensClient().prepareCompaction(env.sessionId, settings, {
        ...(req.keepRecentTokens !== undefined ? { keepRecentTokens: req.keepRecentTokens } : {}),
        ...(req.force ? { force: true } : {}),
        ...(chatModel ? { window: chatModel.contextWindow } : {}),
        ...(plan ? { plan } : {}),
      }),
    );
    if (!prepared) {
      if (req.reason === 'manual') toast.info('Nothing to compact yet: everything fits in the recent context that is kept verbatim.');
      return null;
    }
    const { prep } = prepared;
    const window = chatModel?.contextWindow;
    // When the kept tail alone is as large as the context, no summary can help: do not spend a summarizer call.
    const early = compactionVerdict({ tokensBefore: prep.tokensBefore, tokensKept: prep.tokensKept, summaryTokens: 0, window });
    if (!early.append) {
      toast.warning(notSmallerMessage(early, prep.tokensBefore, prep.tokensKept, window, true));
      return null;
    }
    const engine = summaryEngine(env, prepared.plan);
    const result = await compact(prep, engine, {
      signal,
      onDelta: streamToRun(run),
      hooks: registeredHooks,
      onHookError: (e) => console.warn('afterCompact hook failed', e),
    });
    if (!result) {
      toast.info('A compaction hook cancelled this compaction.');
      return null;
    }
    if (signal.aborted) throw new DOMException('Aborted', 'AbortError');
    const summaryTokens = await getTokensClient().summaryTokens(env.sessionId, result.summary);
    const verdict = compactionVerdict({ tokensBefore: result.tokensBefore, tokensKept: prep.tokensKept, summaryTokens, window });
    if (!verdict.append) {
      toast.warning(notSmallerMessage(verdict, result.tokensBefore, prep.tokensKept, window));
      return null;
    }
    const tokensAfter = Math.round(verdict.tokensAfter);
    const entry = { ...compactionEntryFrom(result), tokensAfter };
    // Appended where it was prepared: if another tab moved on meanwhile, this becomes a sibling, never an overwrite.
    const [created] = await appendEntries(env.sessionId, prep.leafId, [entry]);
    env.live.applyLocal([created!], created!.id);
    if (engine.kind === 'extractive' && req.reason === 'manual') toast.info('No model is connected: the summary was written by the built-in extractive summarizer.');
    toast.success(`Compacted: ${formatTokens(result.tokensBefore)} → ${formatTokens(tokensAfter)} tokens`);
    return created!.id;
  } catch (err) {
    if (isAbortError(err) || signal.aborted) toast.info('Compaction cancelled — nothing changed.');
    else toast.error(`Compaction failed: ${err instanceof Error ? err.message : String(err)} Nothing changed.`);
    return null;
  } finally {
    if (!req.run) useRuns.getState().end(env.sessionId, run);
  }
}

/** Why a compaction was not appended, with what the user can do about it. */
function notSmallerMessage(v: Extract<CompactionVerdict, { append: false }>, before: number, kept: number, window: number | undefined, beforeSummary = false): string {
  // Before summarising, the figure after is a lower bound: the kept tail alone.
  const after = `${beforeSummary ? 'at least ' : ''}${formatTokens(v.tokensAfter)}`;
  const head = `Not compacted: it would not have made the context smaller (${formatTokens(before)} → ${after} tokens).`;
  if (v.why === 'kept-exceeds-window')
    return `${head} The recent part kept word for word (${formatTokens(kept)} tokens, usually one very long message) is larger than the model's whole window (${formatTokens(window ?? 0)}). Shorten or split that message, or switch to a model with a larger window.`;
  return `${head} The summary would be longer than the history it replaces. Lower "Keep recent tokens" so more is summarised, or compact later when there is more history.`;
}

/**
 * After a turn: compact when the context passed window − reserve (or the
 * percentage threshold). A reply whose reported input filled the whole window
 * means the server silently dropped part of the prompt (Ollama and some
 * proxies truncate instead of failing): that gets the emergency compaction an
 * overflow error would.
 */
export async function autoCompactIfNeeded(env: CompactionEnv): Promise<void> {
  if (!env.chatModel) return;
  await syncNow(env);
  const snap = env.live.getSnapshot();
  const leaf = snap.leafId ? snap.tree.get(snap.leafId) : undefined;
  const usage = leaf?.type === 'message' && leaf.message.role === 'assistant' ? leaf.message.usage : undefined;
  const reportedInput = usage ? usage.input + (usage.cacheRead ?? 0) + (usage.cacheWrite ?? 0) : undefined;
  if (usageOverflow(reportedInput, env.chatModel.contextWindow)) {
    toast.warning('The provider reported a prompt as large as the whole window: part of the conversation was probably cut. Compacting.');
    await compactSession(env, { reason: 'truncated', force: true, keepRecentTokens: emergencyKeepRecent(env.chatModel.contextWindow, env.settings) });
    return;
  }
  if (!env.settings.enabled) return;
  const figure = env.sync.figure;
  if (!figure) return;
  if (shouldCompact({ contextTokens: figure.tokens, window: env.chatModel.contextWindow, settings: env.settings, streaming: false })) {
    await compactSession(env, { reason: 'auto' });
  }
}

/**
 * Before sending from `leafId`: compact that path first when the new message would not fit.
 * Resolves with the compaction entry (appended under `leafId`) for the message to follow, or null.
 */
export async function compactBeforeSendIfNeeded(env: CompactionEnv, content: UserContent[], leafId: EntryId | null): Promise<EntryId | null> {
  const chatModel = env.chatModel;
  if (!env.settings.enabled || !chatModel) return null;
  const target = syncTarget(env, leafId);
  const figure = await env.sync.pinned(target.path, target.opts, async () => env.sync.figure);
  if (!figure) return null;
  const text = content.map((c) => (c.type === 'text' ? c.text : c.type === 'file' ? (c.text ?? '') : '')).join('\n');
  const [newTokens] = await getTokensClient().countTexts([text]);
  if (!wouldOverflow({ contextTokens: figure.tokens, newMessageTokens: newTokens ?? 0, window: chatModel.contextWindow, settings: env.settings })) return null;
  return compactSession(env, { reason: 'before-send', leafId });
}

/** Overflow recovery: a forced compaction, with a smaller keep-recent, of the path the refused request was built from. Resolves with the new leaf to retry from. */
export async function recoverFromOverflow(env: CompactionEnv, run: Run): Promise<EntryId | null> {
  const window = env.chatModel?.contextWindow ?? 32_768;
  return compactSession(env, { reason: 'overflow', force: true, keepRecentTokens: emergencyKeepRecent(window, env.settings), run, leafId: run.parentId });
}

export function autoCompactLimit(env: Pick<CompactionEnv, 'settings' | 'chatModel'>): number | undefined {
  return env.chatModel ? compactionLimit(env.chatModel.contextWindow, env.settings) : undefined;
}
