import { formatBytes, formatCount } from '@/lib/format/numbers';
import { summarizerLabel } from '@/lib/timeline/summarizerLabel';
import type { EffectiveSummary } from '@/lib/session/revisions';
import { messageText, oneLine } from '@/lib/session/messages';
import type { ImagePart, SessionEntry } from '@/lib/session/types';

/** Wording shared by the Markdown and HTML exports. */


export function formatDate(ms: number): string {
  const d = new Date(ms);
  return Number.isFinite(d.getTime()) ? d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : String(ms);
}

export function imageLabel(p: ImagePart): string {
  const bits = [p.mimeType];
  if (p.width && p.height) bits.push(`${p.width}×${p.height}`);
  const bytes = p.byteLength ?? (p.data ? Math.floor((p.data.length * 3) / 4) : undefined);
  if (bytes !== undefined) bits.push(formatBytes(bytes));
  return `image: ${bits.join(', ')}`;
}

export function isHttpUrl(url: string | undefined): url is string {
  return !!url && /^https?:\/\//i.test(url);
}

/** Short label of an entry for headings and the tree. */
export function entryLabel(e: SessionEntry): string {
  switch (e.type) {
    case 'message':
      if (e.message.role === 'user') return 'User';
      if (e.message.role === 'assistant') return 'Assistant';
      return `Tool result · ${e.message.toolName}`;
    case 'compaction':
      return 'Compaction summary';
    case 'branch_summary':
      return 'Branch summary';
    case 'model_change':
      return 'Model change';
    case 'label':
      return 'Label';
    case 'summary_revision':
      return `Summary ${e.action}`;
    case 'custom':
      return e.customType;
    case 'pin':
      return e.pinned ? 'Pinned' : 'Unpinned';
    case 'tool_mask':
      return 'Tool output masked';
  }
}

/** One line of content for the tree view. */
export function entryPreview(e: SessionEntry, max = 80): string {
  switch (e.type) {
    case 'message': {
      const text = messageText(e.message);
      if (text.trim()) return oneLine(text, max);
      if (e.message.role === 'assistant') {
        const call = e.message.content.find((p) => p.type === 'toolCall');
        if (call?.type === 'toolCall') return oneLine(`${call.name}(${JSON.stringify(call.arguments)})`, max);
        if (e.message.content.some((p) => p.type === 'thinking')) return '(thinking)';
      }
      if (e.message.role !== 'assistant' && e.message.content.some((p) => p.type === 'image')) return '(image)';
      return '(empty)';
    }
    case 'compaction':
    case 'branch_summary':
      return oneLine(e.summary, max);
    case 'model_change':
      return e.model;
    case 'label':
      return e.label ?? '(cleared)';
    case 'summary_revision':
      return oneLine(e.summary ?? e.targetId, max);
    case 'custom':
      return oneLine(e.display ?? '', max);
    case 'pin':
      return `${e.pinned ? 'pinned' : 'unpinned'} ${e.targetId}`;
    case 'tool_mask':
      return `${e.maskedIds.length} tool results, ${formatCount(e.tokensBefore)} → ${formatCount(e.tokensAfter)} tokens`;
  }
}

export function stopNote(reason: string | undefined): string | undefined {
  if (!reason || reason === 'stop' || reason === 'toolUse') return undefined;
  const words: Record<string, string> = {
    length: 'cut off at the length limit',
    error: 'ended with an error',
    aborted: 'aborted',
    interrupted: 'interrupted before it finished',
  };
  return words[reason] ?? reason;
}

export function argsJson(args: unknown): string {
  try {
    return JSON.stringify(args, null, 2) ?? 'null';
  } catch {
    return String(args);
  }
}

/**
 * The record behind a summary, as the timeline shows it: who summarised it,
 * how long it took, what it cost, which files it touched, its versions and
 * whether it is undone. Exports carry these so a reader sees what happened.
 */
export function summaryFacts(e: SessionEntry, effective: EffectiveSummary | undefined): string[] {
  if (e.type !== 'compaction' && e.type !== 'branch_summary') return [];
  const d = effective?.details ?? e.details;
  const facts: string[] = [];
  const s = d.summarizer;
  facts.push(`summarizer: ${summarizerLabel(s)}`);
  if (d.durationMs !== undefined) facts.push(`${(d.durationMs / 1000).toFixed(1)} s`);
  if (d.usage?.cost !== undefined) facts.push(`$${d.usage.cost.toFixed(4)}`);
  if (d.summarizedEntryCount !== undefined) facts.push(`${d.summarizedEntryCount} entries summarised`);
  if (d.customInstructions) facts.push(`focus: ${d.customInstructions}`);
  if (d.readFiles.length) facts.push(`read: ${d.readFiles.join(', ')}`);
  if (d.modifiedFiles.length) facts.push(`modified: ${d.modifiedFiles.join(', ')}`);
  if (effective && effective.versions.length > 1) facts.push(`version ${effective.versions.length} (${effective.versions.at(-1)!.action === 'edit' ? 'edited' : 'regenerated'})`);
  if (effective?.undone) facts.push('undone: not in the context');
  return facts;
}
