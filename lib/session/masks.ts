import type { EntryId, SessionEntry, ToolResultMessage } from './types';

/**
 * Observation masking (see ToolMaskEntry): which tool results the model sees
 * as a stub at the end of a path, and what the stub says.
 */

/** Ids masked at the end of `path`: tool_mask entries on it, minus those undone by a later revision on it. */
export function resolveMasks(path: readonly SessionEntry[]): Set<EntryId> {
  const undone = new Map<EntryId, boolean>();
  const masks: { id: EntryId; ids: EntryId[] }[] = [];
  for (const e of path) {
    if (e.type === 'tool_mask') {
      masks.push({ id: e.id, ids: e.maskedIds });
      undone.set(e.id, false);
    } else if (e.type === 'summary_revision' && undone.has(e.targetId) && (e.action === 'undo' || e.action === 'redo')) {
      undone.set(e.targetId, e.action === 'undo');
    }
  }
  const out = new Set<EntryId>();
  for (const m of masks) if (!undone.get(m.id)) for (const id of m.ids) out.add(id);
  return out;
}

/** Whether the tool_mask entry `id` is undone at the end of `path`. */
export function isMaskUndone(path: readonly SessionEntry[], id: EntryId): boolean {
  let undone = false;
  for (const e of path) if (e.type === 'summary_revision' && e.targetId === id && (e.action === 'undo' || e.action === 'redo')) undone = e.action === 'undo';
  return undone;
}

/**
 * The one line the model sees instead of a masked output. It names the tool
 * and the size, and keeps the first line (often the command or the error), so
 * the model knows what it had and can run the tool again if it needs more.
 */
export function maskStubText(m: ToolResultMessage): string {
  let text = '';
  let images = 0;
  for (const p of m.content) {
    if (p.type === 'text') text += (text ? '\n' : '') + p.text;
    else images++;
  }
  const lines = text ? text.split('\n').length : 0;
  const first = text.split('\n').find((l) => l.trim())?.trim() ?? '';
  const head = first.length > 100 ? `${first.slice(0, 100)}…` : first;
  const size = [lines ? `${lines} line${lines === 1 ? '' : 's'}` : '', images ? `${images} image${images === 1 ? '' : 's'}` : ''].filter(Boolean).join(', ') || 'empty';
  return `[Old ${m.toolName} output masked to save context (${size}${m.isError ? ', error' : ''})${head ? `; it began: ${head}` : ''}]`;
}

/** The tool result as the model sees it once masked: same call id, name and error flag, so the call keeps its answer. */
export function maskedMessage(m: ToolResultMessage): ToolResultMessage {
  return { ...m, content: [{ type: 'text', text: maskStubText(m) }] };
}
