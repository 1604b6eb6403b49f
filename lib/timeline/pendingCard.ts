import type { PendingPlacement, PendingSummary } from '@/lib/compaction/pending';
import { formatCount } from '@/lib/format/numbers';
import { plural } from '@/lib/format/plural';

/**
 * What a summary waiting for review covers, in one sentence: it must never
 * go stale silently, so once the conversation moved on it says that what
 * came since stays verbatim.
 */
export function pendingCoverText(pending: PendingSummary, placed: Extract<PendingPlacement, { ok: true }>): string {
  const summarised = placed.summarized.filter((e) => e.type === 'message').length;
  const kept = placed.kept.filter((e) => e.type === 'message').length;
  const head = `Summarises ${plural(summarised, 'message')} (${formatCount(pending.entry.tokensBefore)} tokens in context when it was prepared)`;
  const keeps = kept === 0 ? 'keeps nothing before it' : `keeps the last ${plural(kept, 'message')} then verbatim`;
  const since = placed.newMessages === 0 ? '' : `; the ${plural(placed.newMessages, 'message')} written since stay verbatim too`;
  return `${head}, ${keeps}${since}.`;
}

/** A cache key for the draft's probe report: its id and its text as it is now (an edit is a new report). */
export function pendingProbeKey(pending: PendingSummary): string {
  let h = 2_166_136_261;
  const text = pending.entry.summary;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16_777_619);
  return `pending:${pending.entry.id}:${(h >>> 0).toString(36)}`;
}
