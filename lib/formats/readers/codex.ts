import { newId } from '@/lib/session/ids';
import type { AssistantContent, AssistantMessage, CompactionEntry, SessionEntry, ToolResultMessage, Usage, UserContent } from '@/lib/session/types';
import { EntryAssembler, NO_TIME, timeSpan } from '../assemble';
import { ImportError, type ImportOptions, type ImportResult } from '../types';
import { arr, base64Image, compact, jsonText, num, obj, str, textPart, titleFrom, toMs, type Json } from '../util';
import { readJsonlText, type JsonlSink, type ReadContext } from './jsonl';

/**
 * Codex CLI rollouts (~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl):
 * one `{timestamp, type, payload}` per line.
 *
 * Representation choices:
 * - The file is one chain. Consecutive model output items (reasoning, message,
 *   function_call, custom_tool_call, web_search_call) are one API response, so
 *   they become one assistant entry, as a chat API would return them; its id is
 *   the line of its first item (`codex-<line>`). A function output ends it.
 * - function_call / custom_tool_call → toolCall parts (call_id); their outputs
 *   → toolResult entries paired by call_id. `apply_patch` keeps the patch as
 *   `input`, which file tracking reads (the patched files count as modified).
 *   A non-zero exit code (exec_command_end, or the output's own metadata) or a
 *   failed patch marks the result as an error.
 * - web_search_call is answered on Codex's server and the rollout does not
 *   record the results: the call gets a result that says so, so the pair stays
 *   complete for providers that require one.
 * - reasoning → thinking: its summary or text where recorded, else a redacted
 *   thinking part (only the encrypted blob is stored).
 * - event_msg token_count → usage of the response it follows (last_token_usage,
 *   cached input as cache reads), which calibrates the context meter; repeated
 *   events for the same response are ignored.
 * - turn_context → the model; a later change of model → a model_change entry.
 * - turn_aborted → the last reply of the turn is marked interrupted.
 * - compacted (message, replacement_history) → a compaction entry that keeps
 *   nothing before it (firstKeptEntryId is its own id): Codex replaces the
 *   whole history with `replacement_history`, which holds no entry of the
 *   rollout itself, only copies: the context it injects again (notes here,
 *   never sent), recent user prompts, and the summary (as a user message
 *   starting with `message`; with server-side compaction `message` is empty
 *   and the summary an encrypted `compaction` item). What the model kept
 *   reading is the summary: the copied prompts follow it in a section of
 *   their own, since they reached the model too, and an encrypted summary
 *   says that it cannot be read. The history it replaced is the path before
 *   it, which is what a regeneration summarises.
 * - Developer messages and the context Codex injects as user messages
 *   (AGENTS.md, <environment_context>, …) describe Codex's sandbox and tools,
 *   which this app does not have: they become notes (`custom`), shown, never sent.
 * - session_meta instructions → the system prompt; cwd and id kept.
 * - Older rollouts (before the `payload` envelope) hold bare response items;
 *   they read the same way.
 */

const CONTEXT_MARKERS = ['<environment_context>', '<user_instructions>', '# AGENTS.md instructions', '<permissions instructions>', '<user_shell_command>'];
const RESPONSE_ITEMS = new Set(['message', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'web_search_call', 'local_shell_call']);

function isInjectedContext(text: string): boolean {
  const t = text.trimStart();
  return CONTEXT_MARKERS.some((m) => t.startsWith(m));
}

function contentTexts(content: unknown): string[] {
  return (arr(content) ?? [])
    .map(obj)
    .map((c) => str(c?.text))
    .filter((t): t is string => t !== undefined);
}

function parseArgs(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'string') return obj(raw) ?? { input: raw ?? null };
  try {
    return obj(JSON.parse(raw)) ?? { input: raw };
  } catch {
    return { input: raw };
  }
}

/** A tool output: a plain string, a JSON string `{output, metadata:{exit_code}}`, or (older) `{content, success}`. */
function toolOutput(raw: unknown): { text: string; failed: boolean } {
  let value = raw;
  if (typeof raw === 'string' && raw.startsWith('{')) {
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
  }
  const o = obj(value);
  if (!o) return { text: typeof value === 'string' ? value : jsonText(value), failed: false };
  const text = str(o.output) ?? str(o.content) ?? (typeof raw === 'string' ? raw : jsonText(o));
  const exit = num(obj(o.metadata)?.exit_code);
  return { text, failed: (exit !== undefined && exit !== 0) || o.success === false };
}

function codexUsage(u: Json | undefined): Usage | undefined {
  if (!u) return undefined;
  const input = num(u.input_tokens);
  const output = num(u.output_tokens);
  if (input === undefined && output === undefined) return undefined;
  const cached = num(u.cached_input_tokens) ?? 0;
  return compact({
    input: Math.max(0, (input ?? 0) - cached),
    output: output ?? 0,
    cacheRead: cached || undefined,
    totalTokens: num(u.total_tokens) ?? (input ?? 0) + (output ?? 0),
  });
}

function userParts(content: unknown): UserContent[] {
  const out: UserContent[] = [];
  for (const raw of arr(content) ?? []) {
    const c = obj(raw);
    if (!c) continue;
    if (c.type === 'input_text' || c.type === 'text') out.push(textPart(str(c.text) ?? ''));
    else if (c.type === 'input_image') {
      const url = str(c.image_url) ?? '';
      out.push(url.startsWith('data:') ? base64Image(url, undefined) : { type: 'image', mimeType: 'image/*', url });
    }
  }
  return out;
}

/** Said instead of a summary Codex's server wrote encrypted (remote compaction), which nobody but that server can read. */
export const ENCRYPTED_CODEX_SUMMARY = 'Codex compacted the conversation on its server: the summary it kept is encrypted, and this app cannot read it.';

/**
 * The text a Codex compaction stands for in context: its summary, then the
 * user prompts `replacement_history` carried over verbatim (Codex re-sends the
 * most recent ones with the summary). The context Codex injects is left out,
 * as everywhere in this reader, and so is the copy of the summary itself.
 */
function codexCompactionSummary(p: Json): string {
  const message = str(p.message) ?? '';
  let encrypted = false;
  const prompts: string[] = [];
  for (const raw of arr(p.replacement_history) ?? []) {
    const item = obj(raw);
    if (item?.type === 'compaction' || item?.type === 'compaction_summary') encrypted = true;
    if (item?.type !== 'message' || item.role !== 'user') continue;
    const text = contentTexts(item.content).join('\n\n');
    if (text.trim() === '' || isInjectedContext(text) || (message !== '' && text.trim() === message.trim())) continue;
    prompts.push(text);
  }
  const summary = message || (encrypted ? ENCRYPTED_CODEX_SUMMARY : '');
  if (prompts.length === 0) return summary;
  const kept = `## User messages Codex kept with the summary\n\n${prompts.join('\n\n---\n\n')}`;
  return summary ? `${summary}\n\n${kept}` : kept;
}

interface Pending {
  entry: SessionEntry & { type: 'message' };
  message: AssistantMessage;
  /** Results the rollout does not record (web searches), written after the response. */
  answers: ToolResultMessage[];
}

class CodexSink implements JsonlSink {
  private readonly asm: EntryAssembler;
  private prev: string | null = null;
  private lastTs = NO_TIME;
  private pending: Pending | null = null;
  /** The latest assistant message, and whether a user prompt came after it (a new turn). */
  private lastReply: AssistantMessage | null = null;
  private readonly usageSet = new WeakSet<AssistantMessage>();
  private readonly callNames = new Map<string, string>();
  private readonly results = new Map<string, ToolResultMessage>();
  private readonly failedCalls = new Set<string>();
  private contextTokens = 0;
  private provider = 'openai';
  private model: string | undefined;
  private sessionId: string | undefined;
  private instructions: string | undefined;
  private cwd: string | undefined;
  private startedAt: number | undefined;
  private firstPrompt: string | undefined;
  private records = 0;

  constructor(private readonly ctx: ReadContext) {
    this.asm = new EntryAssembler('codex', ctx.warnings, ctx.importedAt);
  }

  private add(entry: SessionEntry): void {
    if (this.asm.add(entry)) this.prev = entry.id;
  }

  private base(lineNo: number, suffix = ''): { id: string; parentId: string | null; timestamp: number } {
    return { id: `codex-${lineNo}${suffix}`, parentId: this.prev, timestamp: this.lastTs };
  }

  private note(lineNo: number, customType: string, display: string, data: unknown): void {
    this.flush();
    this.add({ ...this.base(lineNo), type: 'custom', customType, data, display });
  }

  /** Writes the response being collected, then the results the rollout does not record. */
  private flush(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    p.message.stopReason ??= p.message.content.some((c) => c.type === 'toolCall') ? 'toolUse' : 'stop';
    this.add(p.entry);
    p.answers.forEach((answer, i) => this.add({ ...this.base(0), id: `${p.entry.id}:answer${i + 1}`, type: 'message', message: answer }));
  }

  private response(lineNo: number): Pending {
    if (!this.pending) {
      const message: AssistantMessage = compact({ role: 'assistant' as const, content: [] as AssistantContent[], model: this.model });
      this.pending = { entry: { ...this.base(lineNo), type: 'message', message }, message, answers: [] };
      this.lastReply = message;
    }
    return this.pending;
  }

  record(rec: Json, lineNo: number): void {
    this.records++;
    this.lastTs = toMs(rec.timestamp) ?? this.lastTs;
    const payload = obj(rec.payload);
    if (!payload) {
      this.legacy(rec, lineNo);
      return;
    }
    switch (rec.type) {
      case 'session_meta':
        this.sessionMeta(payload);
        return;
      case 'turn_context':
        this.turnContext(payload, lineNo);
        return;
      case 'response_item':
        this.responseItem(payload, lineNo);
        return;
      case 'event_msg':
        this.event(payload, lineNo);
        return;
      case 'compacted':
        this.compacted(payload, lineNo);
        return;
      default:
        if (typeof rec.type !== 'string') throw new ImportError(`Line ${lineNo}: a record without a "type"`, { format: 'codex', line: lineNo });
    }
  }

  /** Rollouts before the envelope: a header `{id, timestamp, instructions}`, then bare response items and state lines. */
  private legacy(rec: Json, lineNo: number): void {
    if (typeof rec.type === 'string' && RESPONSE_ITEMS.has(rec.type)) this.responseItem(rec, lineNo);
    else if (rec.record_type !== undefined) return;
    else if (this.records === 1 && typeof rec.id === 'string') this.sessionMeta(rec);
    else if (typeof rec.type !== 'string') throw new ImportError(`Line ${lineNo}: not a Codex rollout record (no "type" or "payload")`, { format: 'codex', line: lineNo });
  }

  private sessionMeta(p: Json): void {
    this.sessionId ??= str(p.id);
    this.cwd ??= str(p.cwd);
    this.startedAt ??= toMs(p.timestamp);
    this.provider = str(p.model_provider) ?? this.provider;
    this.instructions ??= str(p.instructions) ?? str(obj(p.base_instructions)?.text) ?? str(p.base_instructions);
  }

  private turnContext(p: Json, lineNo: number): void {
    const name = str(p.model);
    if (!name) return;
    const model = `${this.provider}:${name}`;
    if (this.model !== undefined && model !== this.model) {
      this.flush();
      this.add({ ...this.base(lineNo), type: 'model_change', model });
    }
    this.model = model;
  }

  private responseItem(p: Json, lineNo: number): void {
    switch (p.type) {
      case 'message':
        this.message(p, lineNo);
        return;
      case 'reasoning': {
        const summary = contentTexts(p.summary).join('\n\n') || contentTexts(p.content).join('\n\n');
        this.response(lineNo).message.content.push(summary ? { type: 'thinking', thinking: summary } : { type: 'thinking', thinking: '', redacted: true });
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call': {
        const id = str(p.call_id) ?? str(p.id) ?? `codex-${lineNo}`;
        const name = str(p.name) ?? (p.type === 'local_shell_call' ? 'local_shell' : 'unknown');
        const args = p.type === 'function_call' ? parseArgs(p.arguments) : p.type === 'custom_tool_call' ? { input: p.input ?? null } : (obj(p.action) ?? {});
        this.callNames.set(id, name);
        this.response(lineNo).message.content.push({ type: 'toolCall', id, name, arguments: args });
        return;
      }
      case 'web_search_call': {
        const id = str(p.id) ?? `codex-${lineNo}:search`;
        const action = obj(p.action) ?? {};
        const reply = this.response(lineNo);
        reply.message.content.push({ type: 'toolCall', id, name: 'web_search', arguments: action });
        const query = str(action.query);
        reply.answers.push({
          role: 'toolResult',
          toolCallId: id,
          toolName: 'web_search',
          content: [textPart(`Web search ${str(p.status) ?? 'run'}${query ? ` for ${JSON.stringify(query)}` : ''}; Codex does not record the results in its rollout.`)],
          isError: p.status === 'failed',
        });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        this.flush();
        const callId = str(p.call_id) ?? '';
        const { text, failed } = toolOutput(p.output);
        const result: ToolResultMessage = {
          role: 'toolResult',
          toolCallId: callId,
          toolName: this.callNames.get(callId) ?? 'unknown',
          content: [textPart(text)],
          isError: failed || this.failedCalls.has(callId),
        };
        this.results.set(callId, result);
        this.add({ ...this.base(lineNo), type: 'message', message: result });
        return;
      }
      default:
        this.note(lineNo, `codex:${String(p.type)}`, `Codex ${String(p.type)} record`, p);
    }
  }

  private message(p: Json, lineNo: number): void {
    const role = str(p.role);
    if (role === 'assistant') {
      const reply = this.response(lineNo);
      for (const text of contentTexts(p.content)) reply.message.content.push(textPart(text));
      return;
    }
    const text = contentTexts(p.content).join('\n\n');
    if (role === 'user' && !isInjectedContext(text)) {
      this.flush();
      this.lastReply = null;
      this.firstPrompt ??= text;
      this.add({ ...this.base(lineNo), type: 'message', message: { role: 'user', content: userParts(p.content) } });
      return;
    }
    const label = role === 'user' ? (text.trimStart().split('\n')[0] ?? '').replace(/^#\s*|[<>]/g, '').trim() : `${role ?? 'unknown'} instructions`;
    this.note(lineNo, role === 'user' ? 'codex:context' : `codex:${role ?? 'message'}`, `Codex context: ${label}`, { role, text });
  }

  private event(p: Json, lineNo: number): void {
    switch (p.type) {
      case 'token_count': {
        const info = obj(p.info);
        const usage = codexUsage(obj(info?.last_token_usage));
        const reply = this.pending?.message ?? this.lastReply;
        if (usage) this.contextTokens = usage.input + (usage.cacheRead ?? 0) + usage.output;
        if (usage && reply && !this.usageSet.has(reply)) {
          reply.usage = usage;
          this.usageSet.add(reply);
        }
        return;
      }
      case 'exec_command_end':
      case 'patch_apply_end': {
        const callId = str(p.call_id);
        const exit = num(p.exit_code);
        const failed = (exit !== undefined && exit !== 0) || p.success === false;
        if (!callId || !failed) return;
        this.failedCalls.add(callId);
        const result = this.results.get(callId);
        if (result) result.isError = true;
        return;
      }
      case 'turn_aborted': {
        this.flush();
        if (this.lastReply) this.lastReply.stopReason = 'interrupted';
        else this.note(lineNo, 'codex:turn_aborted', `Turn aborted${str(p.reason) ? ` (${str(p.reason)})` : ''}`, p);
        return;
      }
      case 'user_message':
        this.firstPrompt ??= str(p.message);
        return;
      default:
        // agent_message, task_started / complete, web_search_end, …: repeats of response items or bookkeeping.
        return;
    }
  }

  private compacted(p: Json, lineNo: number): void {
    this.flush();
    const base = this.base(lineNo);
    const entry: CompactionEntry = {
      ...base,
      type: 'compaction',
      summary: codexCompactionSummary(p),
      firstKeptEntryId: base.id,
      tokensBefore: this.contextTokens,
      details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'imported', source: 'codex' } },
    };
    this.add(entry);
    this.lastReply = null;
  }

  finish(hash: string): ImportResult {
    this.flush();
    const entries = this.asm.finish();
    if (entries.length === 0) throw new ImportError('The rollout holds no messages.', { format: 'codex' });
    const span = timeSpan(entries, this.asm.fallbackTime);
    const createdAt = Math.min(this.startedAt ?? span.createdAt, span.createdAt);
    const meta = compact({
      id: newId(),
      title: titleFrom(this.firstPrompt, 'Codex session'),
      createdAt,
      updatedAt: Math.max(createdAt, span.updatedAt),
      leafId: this.prev,
      model: this.model,
      systemPrompt: this.instructions,
      cwd: this.cwd,
      undated: (this.asm.undated && this.startedAt === undefined) || undefined,
      source: compact({ format: 'codex', fileName: this.ctx.fileName, hash, originalId: this.sessionId }),
    });
    return { format: 'codex', sessions: [{ meta, entries }], warnings: this.ctx.warnings };
  }
}

export function codexSink(ctx: ReadContext): JsonlSink {
  return new CodexSink(ctx);
}

export function readCodex(text: string, opts: ImportOptions = {}): ImportResult {
  return readJsonlText(text, 'codex', codexSink, opts);
}
