import type { ModelMessage } from 'ai';
import type { ContextItem } from '@/lib/session/context';
import type { AssistantMessage, ToolResultMessage, UserMessage } from '@/lib/session/types';

/**
 * ContextItem[] (what the session says the model sees) → the AI SDK's
 * ModelMessage[] (what the provider packages send).
 *
 * Choices, and why:
 *
 * - Summaries become user messages with a plain-language preamble and
 *   <summary> tags. A system message would be stronger but several providers
 *   accept only one system prompt (Anthropic, Gemini); a user message is
 *   accepted everywhere and the tags make clear it is data, not an instruction.
 * - This app sends no tools, so tool calls and tool results from imported
 *   transcripts cannot be sent as tool messages: providers reject tool results
 *   without a matching tool definition, and orphaned ones after compaction cut
 *   a call/result pair apart. They are flattened into readable text: calls
 *   join the assistant turn that made them, results join the following user
 *   turn (they came from the environment, not from the model).
 * - Thinking is dropped. Sending it back needs provider signatures we do not
 *   keep (Anthropic rejects unsigned thinking blocks), and models do not need
 *   their old reasoning to continue.
 * - Consecutive messages of the same role are merged, always: Anthropic and
 *   Gemini require user/assistant alternation and the others do not mind.
 * - A conversation that opens with the assistant (possible after import or a
 *   compaction cut) gets a short user opener, since Anthropic requires the
 *   first message to come from the user.
 * - Images travel as file parts with base64 data. Images known only by URL
 *   become a text note: passing a URL would make the SDK or the provider
 *   fetch an address from the session file.
 */

export const COMPACTION_SUMMARY_PREFIX = 'The conversation history before this point was compacted into the following summary:';
export const BRANCH_SUMMARY_PREFIX = 'The following is a summary of a branch of this conversation that was explored and then left; the conversation continues from an earlier point:';
const OPENER = '(The conversation continues below.)';

type UserPart = { type: 'text'; text: string } | { type: 'file'; data: { type: 'data'; data: string }; mediaType: string; filename?: string };

interface Draft {
  role: 'user' | 'assistant';
  parts: UserPart[];
}

function summaryText(prefix: string, summary: string): string {
  return `${prefix}\n\n<summary>\n${summary.trim()}\n</summary>`;
}

function stringifyArgs(args: Record<string, unknown>): string {
  try {
    return JSON.stringify(args);
  } catch {
    return '{}';
  }
}

function userParts(m: UserMessage): UserPart[] {
  const out: UserPart[] = [];
  for (const p of m.content) {
    if (p.type === 'text') {
      if (p.text.trim()) out.push({ type: 'text', text: p.text });
    } else if (p.type === 'image') {
      if (p.data) out.push({ type: 'file', data: { type: 'data', data: p.data }, mediaType: p.mimeType || 'image/png' });
      else out.push({ type: 'text', text: `[image not included${p.url ? `: ${p.url}` : ''}]` });
    } else if (p.text !== undefined) {
      out.push({ type: 'text', text: `<file name="${p.name}" type="${p.mimeType}">\n${p.text}\n</file>` });
    } else {
      out.push({ type: 'text', text: `[attachment ${p.name} (${p.mimeType}, ${p.byteLength} bytes) not included]` });
    }
  }
  return out;
}

function assistantParts(m: AssistantMessage): UserPart[] {
  const texts: string[] = [];
  for (const p of m.content) {
    if (p.type === 'text') {
      if (p.text.trim()) texts.push(p.text);
    } else if (p.type === 'toolCall') {
      texts.push(`[tool call ${p.name}] ${stringifyArgs(p.arguments)}`);
    }
  }
  return texts.length ? [{ type: 'text', text: texts.join('\n\n') }] : [];
}

function toolResultParts(m: ToolResultMessage): UserPart[] {
  const texts: string[] = [];
  const images: UserPart[] = [];
  for (const p of m.content) {
    if (p.type === 'text') texts.push(p.text);
    else if (p.data) images.push({ type: 'file', data: { type: 'data', data: p.data }, mediaType: p.mimeType || 'image/png' });
    else texts.push('[image not included]');
  }
  const label = `[tool result ${m.toolName}${m.isError ? ', error' : ''}]`;
  return [{ type: 'text', text: `${label}\n${texts.join('\n')}`.trimEnd() }, ...images];
}

export function contextToModelMessages(items: readonly ContextItem[]): ModelMessage[] {
  const drafts: Draft[] = [];
  const push = (role: Draft['role'], parts: UserPart[]) => {
    if (!parts.length) return;
    const last = drafts[drafts.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else drafts.push({ role, parts: [...parts] });
  };

  for (const item of items) {
    if (item.kind === 'compactionSummary') push('user', [{ type: 'text', text: summaryText(COMPACTION_SUMMARY_PREFIX, item.summary) }]);
    else if (item.kind === 'branchSummary') push('user', [{ type: 'text', text: summaryText(BRANCH_SUMMARY_PREFIX, item.summary) }]);
    else {
      const m = item.message;
      if (m.role === 'user') push('user', userParts(m));
      else if (m.role === 'assistant') push('assistant', assistantParts(m));
      else push('user', toolResultParts(m));
    }
  }

  if (drafts[0]?.role === 'assistant') drafts.unshift({ role: 'user', parts: [{ type: 'text', text: OPENER }] });

  return drafts.map((d): ModelMessage => {
    if (d.role === 'assistant') {
      // Assistant parts are text only; join them so providers see one block per turn.
      const text = d.parts.map((p) => (p.type === 'text' ? p.text : '')).filter(Boolean).join('\n\n');
      return { role: 'assistant', content: [{ type: 'text', text }] };
    }
    return { role: 'user', content: mergeAdjacentText(d.parts) };
  });
}

/** Adjacent text parts joined by a blank line: fewer blocks, same reading. */
function mergeAdjacentText(parts: UserPart[]): UserPart[] {
  const out: UserPart[] = [];
  for (const p of parts) {
    const last = out[out.length - 1];
    if (p.type === 'text' && last?.type === 'text') last.text = `${last.text}\n\n${p.text}`;
    else out.push(p.type === 'text' ? { ...p } : p);
  }
  return out;
}
