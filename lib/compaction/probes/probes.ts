import type { ChatMessage, EntryId, ToolCallPart } from '@/lib/session/types';
import { namesIn, proseOf } from './names';
import { contentWords, normalise } from './text';

/**
 * What a summary of a span should still let a reader answer, drawn from the
 * span alone. Each kind is a question someone carrying on the work asks:
 * which files changed, what the user asked (in their words), which names
 * matter, what was decided, what went wrong, what was being done when the
 * history was cut, and what the task list said. The kinds follow what real
 * agents' summaries are judged on (Claude Code's nine sections, Codex's
 * handoff, Gemini CLI's state snapshot) and what users complain goes missing.
 */

export type ProbeKind =
  | 'request'
  | 'lastTask'
  | 'fileModified'
  | 'fileRead'
  | 'identifier'
  | 'assistantIdentifier'
  | 'decision'
  | 'error'
  | 'currentWork'
  | 'task';

export const PROBE_KINDS: readonly ProbeKind[] = ['request', 'lastTask', 'fileModified', 'fileRead', 'identifier', 'assistantIdentifier', 'decision', 'error', 'currentWork', 'task'];

export const PROBE_KIND_LABEL: Record<ProbeKind, string> = {
  request: 'user requests (verbatim)',
  lastTask: 'last open task',
  fileModified: 'files modified',
  fileRead: 'files read',
  identifier: 'names used ≥ 2×',
  assistantIdentifier: 'names in the assistant’s prose',
  decision: 'decisions',
  error: 'errors',
  currentWork: 'work at the cut',
  task: 'task list',
};

export interface Probe {
  kind: ProbeKind;
  /** What is missing when it is not answered, short enough for a list item (a name, a path, a request's first line). */
  label: string;
  /** Normalised terms (lib/compaction/probes/text.ts); the probe is answered when at least `need` of them occur. */
  terms: string[];
  need: number;
  /** The message the probe came from, so a missing item can be pinned. */
  entryId?: EntryId;
}

export interface SpanMessage {
  entryId: EntryId;
  message: ChatMessage;
}

/** How much of a request's first line is asked for verbatim: enough to identify it. */
const REQUEST_KEY = 80;

function textOf(m: ChatMessage): string {
  let out = '';
  for (const p of m.content) if (p.type === 'text') out += (out ? '\n' : '') + p.text;
  return out.trim();
}

/**
 * A user message that someone typed as a request. Tool output relayed as a
 * user turn, shell commands the user ran themselves, injected environment
 * blocks and a tool's own "continued from a previous conversation" summary
 * are not requests.
 */
function requestText(m: ChatMessage): string | null {
  if (m.role !== 'user') return null;
  const t = textOf(m);
  if (!t) return null;
  if (/^\[(?:Shell command|Request interrupted)/i.test(t)) return null;
  if (/^<[a-z_-]+>/i.test(t)) return null;
  if (/^This session is being continued from a previous conversation/i.test(t)) return null;
  return t;
}

/** The start of a request's first line, cut at a word boundary so the probe asks for whole words. */
function requestKey(line: string): string {
  const n = normalise(line);
  if (n.length <= REQUEST_KEY) return n;
  const cut = n.lastIndexOf(' ', REQUEST_KEY);
  return (cut > REQUEST_KEY / 2 ? n.slice(0, cut) : n.slice(0, REQUEST_KEY)).trim();
}

function firstLine(t: string): string {
  return (t.split('\n').find((l) => l.trim()) ?? '').trim();
}

const WRITES = /write|edit|patch|create|replace|insert|notebook|delete|remove|rename|move|str_replace/i;
const READS = /^(?:read|view|open|cat|read_file|readfile|view_file|get_file)/i;
const PATH_KEY = /^(?:path|file_path|filepath|file|filename|notebook_path|target_file|target|destination|absolute_path)$/i;
const PATCH_FILE = /^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$|^\+\+\+ b\/(.+)$/gm;

function pathArgs(call: ToolCallPart): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(call.arguments ?? {})) {
    if (typeof v !== 'string') continue;
    if (PATH_KEY.test(k) && v.trim() && !v.includes('\n') && v.length < 400) out.push(v.trim());
    for (const m of v.matchAll(PATCH_FILE)) out.push((m[1] ?? m[2] ?? m[3] ?? '').trim());
  }
  return out.filter(Boolean);
}

/** A path as a probe asks for it: its last two segments, so relative and absolute spellings of one file both answer. */
function pathTerm(p: string): string {
  const parts = p.replace(/\\/g, '/').split('/').filter((s) => s && s !== '.');
  return normalise(parts.slice(-2).join('/'));
}

/** A name as a probe asks for it; a name that is a file path is asked for like a file, by its last two segments. */
function nameTerm(k: string): string {
  return /^(?:~|\.{1,2})?\/?[\w.@-]+(?:\/[\w.@-]+)+$/.test(k) && !/^https?:/.test(k) && /\.[a-z0-9]{1,8}$/.test(k) ? pathTerm(k) : k;
}

/** Short string arguments (commands, paths, patterns, queries): where a call names things. Long ones are file contents. */
function shortArgs(call: ToolCallPart): string {
  const out: string[] = [];
  for (const v of Object.values(call.arguments ?? {})) if (typeof v === 'string' && v.length <= 240 && !v.includes('\n')) out.push(v);
  return out.join('\n');
}

const DECISION = /\b(?:decided|decision|instead of|rather than|i'll use|we'll use|let's use|going with|chose|choose|opted|switch(?:ed|ing)? to|the (?:fix|solution|approach|root cause|cause|problem|issue|bug) (?:is|was)|root cause|because|so that|better to|prefer|should use|the plan is|trade-?off)\b/i;
const SENTENCE = /(?<=[.!?])\s+(?=[A-Z`*(\[])|\n+/;

const ERROR_LINE = /\b(?:error|exception|traceback|fatal|failed|failure|cannot|can't|not found|no such file|denied|refused|undefined is not|is not a function|ENOENT|EACCES|EADDRINUSE|panic)\b/i;
const NOT_AN_ERROR = /\b(?:0 errors?|no errors?|0 failed|without errors?)\b/i;
const EMPTY_ERROR = /^(?:\(no output\)[,.]?\s*)?(?:command )?(?:exited with|exit) code \d+\.?$|^\(no output\)$/i;
const SHELL = /^(?:bash|shell|sh|zsh|terminal|run_shell_command|run_terminal_cmd|exec_command|execute_command|local_shell|run_command|command)$/i;
const NAMED_FAILURE = /(?:^|\n)\s*(?:[\w.$]*(?:Error|Exception)\b:|.*\berror(?:\[\w+\])? TS\d+:|fatal:|npm ERR!|FAIL\b|Traceback \(most recent call last\))/;
const ERROR_CODE = /\b(?:TS\d{3,5}|E[A-Z]{3,}|[A-Z][A-Za-z]*(?:Error|Exception)|HTTP \d{3}|\d{3} [A-Z][a-z]+)\b/g;

/** The line of a failed result that says what went wrong, or null when it says nothing (an exit code alone). */
function errorLine(text: string): string | null {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !EMPTY_ERROR.test(l) && !/^(?:>|\$|npm ERR! (?:A complete log|Lifecycle|code|path|errno|syscall))/.test(l));
  const named = lines.find((l) => ERROR_CODE.test(l) && ERROR_LINE.test(l));
  ERROR_CODE.lastIndex = 0;
  return named ?? lines.find((l) => ERROR_LINE.test(l) && !NOT_AN_ERROR.test(l)) ?? null;
}

/** Terms of a sentence-like probe: its names first (up to three), filled up with content words. */
function sentenceTerms(text: string, max = 3): string[] {
  const names = namesIn(text)
    .map(normalise)
    .filter((n) => n.length >= 3)
    .sort((a, b) => b.length - a.length)
    .slice(0, max);
  const words = contentWords(text, max).filter((w) => !names.some((n) => n.includes(w)));
  return [...names, ...words].slice(0, max);
}

/** At least three fifths of the terms, at least one. */
function majority(terms: readonly string[]): number {
  return Math.max(1, Math.ceil(terms.length * 0.6));
}

function clip(s: string, max = 100): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

interface TodoItem {
  text: string;
  status: string;
}

/** The items of a todo or plan tool call (Claude Code TodoWrite `todos`, Codex update_plan `plan`, others' `tasks`/`items`). */
function todoItems(call: ToolCallPart): TodoItem[] | null {
  if (!/todo|plan|task/i.test(call.name)) return null;
  for (const key of ['todos', 'plan', 'tasks', 'items']) {
    const list = call.arguments?.[key];
    if (!Array.isArray(list)) continue;
    const items: TodoItem[] = [];
    for (const it of list) {
      if (!it || typeof it !== 'object') continue;
      const o = it as Record<string, unknown>;
      const text = [o.content, o.step, o.title, o.task, o.description].find((v): v is string => typeof v === 'string' && v.trim() !== '');
      if (text) items.push({ text, status: typeof o.status === 'string' ? o.status : '' });
    }
    if (items.length) return items;
  }
  return null;
}

/**
 * Names counted by the messages they occur in, from what people and the
 * assistant wrote and the short arguments of calls; tool output is data and
 * is left out (a file listing would make every name in it "used").
 */
function nameUse(span: readonly SpanMessage[]): Map<string, { name: string; count: number; entryId: EntryId }> {
  const use = new Map<string, { name: string; count: number; entryId: EntryId }>();
  for (const { entryId, message: m } of span) {
    if (m.role === 'toolResult') continue;
    const texts: string[] = [];
    for (const p of m.content) {
      if (p.type === 'text') texts.push(proseOf(p.text));
      else if (p.type === 'toolCall') texts.push(shortArgs(p));
    }
    const seen = new Set<string>();
    for (const n of namesIn(texts.join('\n'))) {
      const k = normalise(n);
      if (k.length < 3 || seen.has(k)) continue;
      seen.add(k);
      const u = use.get(k);
      if (u) u.count++;
      else use.set(k, { name: n, count: 1, entryId });
    }
  }
  return use;
}

/** The probes for a span (the messages a summary replaces), oldest first within each kind. */
export function probesFor(span: readonly SpanMessage[]): Probe[] {
  const probes: Probe[] = [];
  const modified = new Map<string, { path: string; entryId: EntryId }>();
  const read = new Map<string, { path: string; entryId: EntryId }>();
  const assistantNames = new Map<string, { name: string; entryId: EntryId }>();
  const decisions = new Map<string, Probe>();
  const errors = new Map<string, Probe>();
  const callName = new Map<string, string>();
  let todos: TodoItem[] | null = null;
  let lastRequest: { text: string; entryId: EntryId; index: number } | null = null;

  span.forEach(({ entryId, message: m }, index) => {
    const req = requestText(m);
    if (req !== null) {
      const first = firstLine(req);
      const key = requestKey(first);
      if (key) probes.push({ kind: 'request', label: clip(first), terms: [key], need: 1, entryId });
      lastRequest = { text: req, entryId, index };
      return;
    }
    if (m.role === 'toolResult') {
      const text = textOf(m);
      // A failed call, or a command whose output reports a named failure; a file that mentions errors is not one.
      const shell = SHELL.test(callName.get(m.toolCallId) ?? m.toolName);
      const line = m.isError ? errorLine(text) : shell && NAMED_FAILURE.test(text) ? errorLine(text) : null;
      if (line && (m.isError || !NOT_AN_ERROR.test(line))) {
        const codes = [...line.matchAll(ERROR_CODE)].map((x) => normalise(x[0]));
        const terms = [...new Set([...codes, ...sentenceTerms(line)])].slice(0, 3);
        const key = terms.join('|');
        if (terms.length && !errors.has(key)) errors.set(key, { kind: 'error', label: `${callName.get(m.toolCallId) ?? m.toolName}: ${clip(line, 90)}`, terms, need: majority(terms), entryId });
      }
      return;
    }
    if (m.role !== 'assistant') return;
    for (const p of m.content) {
      if (p.type === 'toolCall') {
        callName.set(p.id, p.name);
        const items = todoItems(p);
        if (items) todos = items;
        const paths = pathArgs(p);
        const writes = WRITES.test(p.name) && !(typeof p.arguments?.command === 'string' && /^view$/i.test(p.arguments.command));
        for (const path of paths) {
          const k = pathTerm(path);
          if (writes) {
            modified.set(k, { path, entryId });
            read.delete(k);
          } else if (READS.test(p.name) && !modified.has(k)) read.set(k, { path, entryId });
        }
        continue;
      }
      if (p.type !== 'text') continue;
      const prose = proseOf(p.text);
      for (const n of namesIn(prose)) {
        const k = normalise(n);
        if (k.length >= 3 && !assistantNames.has(k)) assistantNames.set(k, { name: n, entryId });
      }
      for (const sentence of prose.split(SENTENCE)) {
        const s = sentence.trim();
        // Headings name a topic and questions ask for a decision; neither is one.
        if (s.length < 24 || !DECISION.test(s) || /^#{1,6}\s/.test(s) || s.endsWith('?')) continue;
        const terms = sentenceTerms(s);
        const key = terms.join('|');
        if (terms.length >= 2 && !decisions.has(key)) decisions.set(key, { kind: 'decision', label: clip(s), terms, need: majority(terms), entryId });
      }
    }
  });

  for (const [k, f] of modified) probes.push({ kind: 'fileModified', label: f.path, terms: [k], need: 1, entryId: f.entryId });
  for (const [k, f] of read) probes.push({ kind: 'fileRead', label: f.path, terms: [k], need: 1, entryId: f.entryId });
  for (const [k, u] of nameUse(span)) if (u.count >= 2) probes.push({ kind: 'identifier', label: u.name, terms: [nameTerm(k)], need: 1, entryId: u.entryId });
  for (const [k, n] of assistantNames) probes.push({ kind: 'assistantIdentifier', label: n.name, terms: [nameTerm(k)], need: 1, entryId: n.entryId });
  probes.push(...decisions.values(), ...errors.values());
  const last = lastRequest as { text: string; entryId: EntryId; index: number } | null;
  if (last) {
    const terms = sentenceTerms(last.text, 5);
    // A request restated keeps its names and a few of its words, rarely three fifths of them.
    if (terms.length) probes.push({ kind: 'lastTask', label: clip(firstLine(last.text)), terms, need: Math.max(1, Math.ceil(terms.length * 0.4)), entryId: last.entryId });
    probes.push(...currentWork(span.slice(last.index + 1)));
  }
  for (const t of (todos as TodoItem[] | null) ?? []) {
    const terms = sentenceTerms(t.text, 4);
    // One word is not a task: "Fix any type check errors" leaves only "errors", which any summary's headings say.
    if (terms.length >= 2) probes.push({ kind: 'task', label: `${t.status ? `[${t.status}] ` : ''}${clip(t.text)}`, terms, need: majority(terms) });
  }
  return probes;
}

/**
 * What the assistant was doing when the span ends: the files its last calls
 * touched and the names in its last words, at most four of each. A summary
 * that says only "work was in progress" leaves the next model to rediscover
 * exactly these.
 */
function currentWork(turn: readonly SpanMessage[]): Probe[] {
  const paths = new Map<string, { path: string; entryId: EntryId }>();
  const names = new Map<string, { name: string; entryId: EntryId }>();
  for (let i = turn.length - 1; i >= 0 && (paths.size < 4 || names.size < 4); i--) {
    const { entryId, message: m } = turn[i]!;
    if (m.role !== 'assistant') continue;
    for (const p of m.content) {
      if (p.type === 'toolCall' && paths.size < 4) for (const path of pathArgs(p)) if (!paths.has(pathTerm(path))) paths.set(pathTerm(path), { path, entryId });
      if (p.type === 'text' && names.size < 4)
        for (const n of namesIn(proseOf(p.text))) {
          const k = normalise(n);
          if (k.length >= 4 && !names.has(k) && names.size < 4) names.set(k, { name: n, entryId });
        }
    }
  }
  const out: Probe[] = [];
  for (const [k, p] of paths) out.push({ kind: 'currentWork', label: p.path, terms: [k], need: 1, entryId: p.entryId });
  for (const [k, n] of names) if (!paths.has(k)) out.push({ kind: 'currentWork', label: n.name, terms: [k], need: 1, entryId: n.entryId });
  return out;
}
