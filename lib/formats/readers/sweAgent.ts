import { newId } from '@/lib/session/ids';
import type { AssistantContent, SessionEntry } from '@/lib/session/types';
import { EntryAssembler, NO_TIME } from '../assemble';
import { contentHash } from '../hash';
import { parseJsonDocument } from '../jsonValues';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, baseName, bool, compact, obj, str, textPart, titleFrom } from '../util';

/**
 * SWE-agent trajectories (.traj): {history[], trajectory[], info}.
 *
 * `history` is what the model saw: a system prompt, user messages (the demo,
 * flagged is_demo, and the task), then assistant turns whose `action` is a
 * shell command, each answered by a user message holding the observation.
 * An action becomes a toolCall named "bash" with {command}; the user message
 * right after it becomes that call's toolResult. User messages with no call
 * waiting (the demo and the task) stay user messages. The trajectory has no
 * times: the session is `undated` and carries the import time (the entries'
 * order is the file's).
 * `info` (exit status, submitted patch, cost) ends the session as a custom entry.
 */

function contentText(v: unknown): string {
  if (typeof v === 'string') return v;
  return (arr(v) ?? [])
    .map((p) => (typeof p === 'string' ? p : (str(obj(p)?.text) ?? '')))
    .join('\n');
}

export function readSweAgent(text: string, opts: ImportOptions = {}): ImportResult {
  const doc = obj(parseJsonDocument(text, 'swe-agent'));
  const history = doc ? arr(doc.history) : undefined;
  if (!doc || !history) throw new ImportError('Expected a SWE-agent trajectory: a JSON object with a "history" list.', { format: 'swe-agent' });
  const warnings: string[] = [];
  const asm = new EntryAssembler('swe-agent', warnings, opts.importedAt);
  let systemPrompt: string | undefined;
  let prev: string | null = null;
  let pending: { id: string; name: string } | null = null;
  let firstTask: string | undefined;
  const add = (e: SessionEntry) => {
    asm.add(e);
    prev = e.id;
  };
  history.forEach((raw, i) => {
    const h = obj(raw);
    if (!h) return;
    const role = str(h.role);
    const content = contentText(h.content);
    const base = { id: `swe-${i}`, parentId: prev, timestamp: NO_TIME };
    if (role === 'system') {
      if (systemPrompt === undefined) systemPrompt = content;
      else add({ ...base, type: 'custom', customType: 'swe-agent:system', data: { content }, display: content.slice(0, 200) });
      return;
    }
    if (role === 'assistant') {
      const parts: AssistantContent[] = [];
      const action = str(h.action);
      const thought = str(h.thought);
      // `content` repeats the action in a fenced block after the thought; the thought alone is the prose.
      const prose = (action !== undefined && thought !== undefined ? thought : content).trimEnd();
      if (prose) parts.push(textPart(prose));
      pending = null;
      if (action !== undefined && action.trim() !== '') {
        pending = { id: `swe-${i}-action`, name: 'bash' };
        parts.push({ type: 'toolCall', id: pending.id, name: 'bash', arguments: { command: action.replace(/\n$/, '') } });
      }
      add({ ...base, type: 'message', message: { role: 'assistant', content: parts, stopReason: pending ? 'toolUse' : 'stop' } });
      return;
    }
    if (role === 'user' || role === 'tool') {
      if (pending && !bool(h.is_demo)) {
        add({ ...base, type: 'message', message: { role: 'toolResult', toolCallId: pending.id, toolName: pending.name, content: [textPart(content)], isError: false } });
        pending = null;
        return;
      }
      if (!bool(h.is_demo) && firstTask === undefined) firstTask = content;
      add({ ...base, type: 'message', message: { role: 'user', content: [textPart(content)] } });
      return;
    }
    add({ ...base, type: 'custom', customType: `swe-agent:${role ?? 'unknown'}`, data: h, display: content.slice(0, 200) });
  });
  const info = obj(doc.info);
  if (info) {
    const status = str(info.exit_status);
    const submission = str(info.submission);
    const display = [`Exit status: ${status ?? 'unknown'}`, submission ? `patch of ${submission.split('\n').length} lines submitted` : ''].filter(Boolean).join(' · ');
    add({ id: 'swe-info', parentId: prev, timestamp: NO_TIME, type: 'custom', customType: 'swe-agent:info', data: info, display });
  }
  const entries = asm.finish();
  const name = baseName(opts.fileName);
  const issue = firstTask?.match(/ISSUE:\s*\n(.+)/)?.[1];
  const title = name ? `SWE-agent: ${name}` : titleFrom(issue ?? firstTask, 'SWE-agent trajectory');
  const meta = compact({
    id: newId(),
    title,
    createdAt: entries[0]?.timestamp ?? asm.fallbackTime,
    updatedAt: entries[0]?.timestamp ?? asm.fallbackTime,
    undated: true,
    leafId: prev,
    systemPrompt,
    source: compact({ format: 'swe-agent', fileName: opts.fileName, hash: contentHash(text), originalId: str((obj(doc.environment) ?? {}).instance_id) ?? name }),
  });
  return { format: 'swe-agent', sessions: [{ meta, entries }], warnings };
}


