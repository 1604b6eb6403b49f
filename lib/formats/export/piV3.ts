import { resolveSummaries } from '@/lib/session/revisions';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantMessage, ChatMessage, EntryId, SessionEntry, SessionSnapshot, ToolResultContent, Usage, UserContent } from '@/lib/session/types';

/**
 * The session as a pi coding-agent session file (JSONL, version 3), so a
 * conversation continued here can go back to the agent: a header line
 * `{type:"session", version:3, id, timestamp, cwd}`, then one entry per line
 * with `id`, `parentId` and an ISO `timestamp`, the whole tree.
 *
 * - pi opens a session at its last line, so the entries are written parents
 *   first with the active path last at every branch point: the current
 *   position ends the file (unless it has entries below it, which follow it).
 * - Messages keep their pi shape (the one readPi reads): model ids are split
 *   into provider and model, usage gets pi's cost object, `interrupted`
 *   becomes pi's `aborted`, file attachments become text, images without
 *   data become a text placeholder.
 * - Compactions and branch summaries carry the summary in effect on the
 *   active path (edits and regenerations applied); an undone compaction has
 *   no counterpart in pi and is written as a `custom` entry, outside the
 *   context, like summary revisions. Custom entries stay custom.
 */

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function splitModel(model: string | undefined): { provider?: string; model?: string } {
  if (!model) return {};
  const at = model.indexOf(':');
  return at > 0 ? { provider: model.slice(0, at), model: model.slice(at + 1) } : { model };
}

function piUsage(u: Usage): Record<string, unknown> {
  return {
    input: u.input,
    output: u.output,
    cacheRead: u.cacheRead ?? 0,
    cacheWrite: u.cacheWrite ?? 0,
    totalTokens: u.totalTokens ?? u.input + u.output + (u.cacheRead ?? 0) + (u.cacheWrite ?? 0),
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: u.cost ?? 0 },
  };
}

function mediaParts(content: readonly (UserContent | ToolResultContent)[]): Record<string, unknown>[] {
  return content.map((p) => {
    if (p.type === 'text') return { type: 'text', text: p.text };
    if (p.type === 'image') return p.data ? { type: 'image', data: p.data, mimeType: p.mimeType } : { type: 'text', text: `[image${p.url ? `: ${p.url}` : ''}]` };
    return { type: 'text', text: `[file: ${p.name}, ${p.mimeType}]${p.text !== undefined ? `\n${p.text}` : ''}` };
  });
}

function assistant(m: AssistantMessage, timestamp: number): Record<string, unknown> {
  const { provider, model } = splitModel(m.model);
  return {
    role: 'assistant',
    content: m.content.map((p) => (p.type === 'thinking' && p.redacted ? { type: 'thinking', thinking: p.thinking, redacted: true } : { ...p })),
    ...(provider ? { provider } : {}),
    ...(model ? { model } : {}),
    ...(m.usage ? { usage: piUsage(m.usage) } : {}),
    stopReason: m.stopReason === 'interrupted' ? 'aborted' : (m.stopReason ?? 'stop'),
    ...(m.errorMessage ? { errorMessage: m.errorMessage } : {}),
    timestamp,
  };
}

function message(m: ChatMessage, timestamp: number): Record<string, unknown> {
  if (m.role === 'user') return { role: 'user', content: mediaParts(m.content), timestamp };
  if (m.role === 'assistant') return assistant(m, timestamp);
  return { role: 'toolResult', toolCallId: m.toolCallId, toolName: m.toolName, content: mediaParts(m.content), isError: m.isError, timestamp };
}

/** Parents first; at every node the children off the active path come first, the one on it last. */
function piOrder(tree: SessionTree, onPath: ReadonlySet<EntryId>): SessionEntry[] {
  const out: SessionEntry[] = [];
  const byPath = (a: SessionEntry, b: SessionEntry) => Number(onPath.has(a.id)) - Number(onPath.has(b.id));
  const stack = [...tree.roots()].sort(byPath).reverse();
  while (stack.length) {
    const e = stack.pop()!;
    out.push(e);
    stack.push(...[...tree.children(e.id)].sort(byPath).reverse());
  }
  return out;
}

export function exportPiV3(snapshot: SessionSnapshot): string {
  const { meta } = snapshot;
  const tree = new SessionTree(snapshot.entries);
  const path = tree.pathTo(meta.leafId);
  const onPath = new Set(path.map((e) => e.id));
  const effective = resolveSummaries(path);
  const { provider, model } = splitModel(meta.model);
  const header = {
    type: 'session',
    version: 3,
    id: meta.source?.format === 'pi' && meta.source.originalId ? meta.source.originalId : meta.id,
    timestamp: iso(meta.createdAt),
    cwd: meta.cwd ?? '',
    ...(provider ? { provider } : {}),
    ...(model ? { modelId: model } : {}),
  };
  const lines = [JSON.stringify(header)];
  for (const e of piOrder(tree, onPath)) {
    const base = { id: e.id, parentId: e.parentId, timestamp: iso(e.timestamp) };
    let rec: Record<string, unknown>;
    switch (e.type) {
      case 'message':
        rec = { type: 'message', ...base, message: message(e.message, e.timestamp) };
        break;
      case 'compaction': {
        const eff = onPath.has(e.id) ? effective.get(e.id) : undefined;
        const details = { readFiles: (eff?.details ?? e.details).readFiles, modifiedFiles: (eff?.details ?? e.details).modifiedFiles };
        rec = eff?.undone
          ? { type: 'custom', ...base, customType: 'longctx:undone_compaction', data: { summary: eff.summary, firstKeptEntryId: e.firstKeptEntryId, tokensBefore: e.tokensBefore } }
          : { type: 'compaction', ...base, summary: eff?.summary ?? e.summary, firstKeptEntryId: e.firstKeptEntryId, tokensBefore: e.tokensBefore, details };
        break;
      }
      case 'branch_summary': {
        const eff = onPath.has(e.id) ? effective.get(e.id) : undefined;
        rec = { type: 'branch_summary', ...base, fromId: e.fromId, summary: eff?.summary ?? e.summary, details: { readFiles: e.details.readFiles, modifiedFiles: e.details.modifiedFiles } };
        break;
      }
      case 'model_change': {
        const m = splitModel(e.model);
        rec = { type: 'model_change', ...base, ...(m.provider ? { provider: m.provider } : {}), modelId: m.model ?? e.model };
        break;
      }
      case 'label':
        rec = { type: 'label', ...base, targetId: e.targetId, ...(e.label === null ? {} : { label: e.label }) };
        break;
      case 'summary_revision':
        rec = { type: 'custom', ...base, customType: 'longctx:summary_revision', data: { targetId: e.targetId, action: e.action, ...(e.summary !== undefined ? { summary: e.summary } : {}) } };
        break;
      // pi has neither pins nor masks: kept as custom records, which pi ignores (read back, they no longer apply).
      case 'pin':
        rec = { type: 'custom', ...base, customType: 'longctx:pin', data: { targetId: e.targetId, pinned: e.pinned } };
        break;
      case 'tool_mask':
        rec = { type: 'custom', ...base, customType: 'longctx:tool_mask', data: { maskedIds: e.maskedIds, tokensBefore: e.tokensBefore, tokensAfter: e.tokensAfter, protectTokens: e.protectTokens } };
        break;
      case 'custom':
        rec = { type: 'custom', ...base, customType: e.customType, ...(e.data !== undefined ? { data: e.data } : {}), ...(e.display !== undefined ? { display: e.display } : {}) };
        break;
    }
    lines.push(JSON.stringify(rec));
  }
  return lines.join('\n') + '\n';
}
