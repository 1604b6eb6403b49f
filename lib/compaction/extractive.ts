import { messageText } from '@/lib/session/messages';
import { stripFileFooter, withFileFooter } from './fileOps';
import { describeImage, truncateMiddle } from './serialize';
import type { FileLists, SummaryItem } from './types';

/**
 * The summary used when no model is configured: no LLM, nothing invented.
 * Like Opal's truncate strategy it costs nothing and never fails, but instead
 * of a one-line count it keeps what a model most needs to continue: the
 * user's own words, the files involved, the errors met and where things
 * stood. Each run appends a numbered part to the previous summary, so facts
 * from the first compaction are still there after the third.
 */

export const EXTRACTIVE_LABEL = '**Extractive summary — no model.** Assembled from the messages themselves; nothing was paraphrased or inferred.';

export interface ExtractiveInput {
  kind: 'compaction' | 'branch';
  items: readonly SummaryItem[];
  /** Split turn: the prefix of the turn the kept messages continue. */
  turnPrefix?: readonly SummaryItem[];
  previousSummary?: string | null;
  fileOps: FileLists;
}

export interface ExtractiveOptions {
  /** Upper bound of the summary body; older parts are cut in the middle first. Default 24 000 characters (~6k tokens). */
  maxChars?: number;
  /** Per user request. Default 800. */
  maxRequestChars?: number;
}

const MAX_REQUESTS = 12;
const MAX_ERRORS = 10;

function userText(item: SummaryItem): string | null {
  if (item.kind !== 'message' || item.message.role !== 'user') return null;
  const parts: string[] = [];
  for (const p of item.message.content) {
    if (p.type === 'text') parts.push(p.text);
    else if (p.type === 'image') parts.push(describeImage(p));
    else parts.push(`[file: ${p.name}]`);
  }
  const t = parts.join('\n').trim();
  return t || null;
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

function firstLine(text: string, max: number): string {
  const line = text.trim().split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function describePart(input: ExtractiveInput, partNo: number, opts: Required<ExtractiveOptions>): string {
  const all = [...input.items, ...(input.turnPrefix ?? [])];
  let users = 0;
  let assistants = 0;
  let results = 0;
  const tools = new Map<string, number>();
  const errors: string[] = [];
  const requests: string[] = [];
  const summaries: string[] = [];
  let lastAssistant = '';
  for (const it of all) {
    if (it.kind !== 'message') {
      summaries.push(`${it.kind === 'branchSummary' ? 'Branch summary' : 'Earlier summary'}:\n${quote(truncateMiddle(stripFileFooter(it.summary), 1500))}`);
      continue;
    }
    const m = it.message;
    if (m.role === 'user') {
      users++;
      const t = userText(it);
      if (t) requests.push(truncateMiddle(t, opts.maxRequestChars));
    } else if (m.role === 'assistant') {
      assistants++;
      for (const p of m.content) if (p.type === 'toolCall') tools.set(p.name, (tools.get(p.name) ?? 0) + 1);
      const t = messageText(m).trim();
      if (t) lastAssistant = t;
      if (m.stopReason === 'error') errors.push(`assistant: ${firstLine(m.errorMessage ?? 'reply failed', 300)}`);
    } else {
      results++;
      if (m.isError) errors.push(`${m.toolName}: ${firstLine(messageText(m) || '(no output)', 300)}`);
    }
  }

  const what = input.kind === 'branch' ? 'Abandoned branch' : `Part ${partNo}`;
  const toolList = [...tools.entries()].sort((a, b) => b[1] - a[1]).map(([n, c]) => `${n} ×${c}`).join(', ');
  const lines: string[] = [
    `### ${what} — ${all.length} item${all.length === 1 ? '' : 's'} (${users} user, ${assistants} assistant, ${results} tool result${results === 1 ? '' : 's'}${toolList ? `; tools: ${toolList}` : ''})`,
  ];

  if (requests.length) {
    lines.push('', 'User requests (verbatim):');
    let shown = requests.map((r, i) => ({ r, n: i + 1 }));
    let omitted = 0;
    if (shown.length > MAX_REQUESTS) {
      // The first requests usually state the goal, the last ones the current task.
      omitted = shown.length - MAX_REQUESTS;
      shown = [...shown.slice(0, 4), ...shown.slice(shown.length - (MAX_REQUESTS - 4))];
    }
    shown.forEach(({ r, n }, i) => {
      if (omitted && i === 4) lines.push(`… ${omitted} more request${omitted === 1 ? '' : 's'} omitted …`);
      lines.push(`${n}.`, quote(r));
    });
  }
  if (summaries.length) lines.push('', ...summaries);
  if (errors.length) {
    lines.push('', 'Errors seen:');
    const shown = errors.slice(-MAX_ERRORS);
    if (errors.length > shown.length) lines.push(`- … ${errors.length - shown.length} earlier error${errors.length - shown.length === 1 ? '' : 's'} omitted`);
    for (const e of shown) lines.push(`- ${e}`);
  }
  if (input.fileOps.modifiedFiles.length || input.fileOps.readFiles.length) {
    lines.push('', `Files so far: ${input.fileOps.modifiedFiles.length} modified, ${input.fileOps.readFiles.length} read (listed below).`);
  }
  if (lastAssistant) lines.push('', 'Last state (the last assistant reply summarised here):', quote(truncateMiddle(lastAssistant, 1200)));
  const prefix = input.turnPrefix ?? [];
  const opener = prefix.length ? userText(prefix[0]!) : null;
  if (opener) lines.push('', 'The kept messages continue a turn that began with:', quote(truncateMiddle(opener, opts.maxRequestChars)));
  return lines.join('\n');
}

/** Builds the extractive summary text (file footer included). */
export function extractiveSummary(input: ExtractiveInput, options: ExtractiveOptions = {}): string {
  const opts: Required<ExtractiveOptions> = { maxChars: options.maxChars ?? 24_000, maxRequestChars: options.maxRequestChars ?? 800 };
  let previous = input.previousSummary ? stripFileFooter(input.previousSummary).trim() : '';
  if (previous.startsWith(EXTRACTIVE_LABEL)) previous = previous.slice(EXTRACTIVE_LABEL.length).trim();
  else if (previous) previous = `### Earlier summary\n${previous}`;
  const partNo = (previous.match(/^### Part \d+/gm)?.length ?? 0) + 1;
  const part = describePart(input, partNo, opts);
  const room = opts.maxChars - EXTRACTIVE_LABEL.length - part.length - 4;
  // Over budget: the middle of the older parts goes first; the first part (the original goal) and the newest survive.
  if (previous.length > room) previous = truncateMiddle(previous, Math.max(0, room - 100), 'of older summary parts cut'); // 100: the marker's own length
  const body = [EXTRACTIVE_LABEL, previous, part].filter((s) => s !== '').join('\n\n');
  return withFileFooter(body, input.fileOps);
}
