import { messageText } from '@/lib/session/messages';
import type { AssistantMessage, ToolCallPart, ToolResultMessage } from '@/lib/session/types';
import { classifyToolCall, stripFileFooter } from './fileOps';
import { truncateMiddle } from './serialize';
import type { SummaryItem } from './types';
import { firstLineOf } from './userMessages';

/**
 * What the extractive summary reports about a stretch of conversation, read
 * from the messages alone: counts per role and tool, the files read and
 * modified, each command with its latest outcome (and earlier failures), each
 * distinct error by the line that says what went wrong, the last reply, and
 * summaries met inside it.
 */

const SHELL_TOOL = /^(?:bash|shell|sh|zsh|terminal|run_shell_command|run_terminal_cmd|exec_command|execute_command|local_shell|run_command|command)$/i;

function commandOf(call: ToolCallPart): string | null {
  if (!SHELL_TOOL.test(call.name)) return null;
  const a = call.arguments ?? {};
  const raw = a.command ?? a.cmd ?? a.script;
  const text = Array.isArray(raw) ? raw.map(String).join(' ') : typeof raw === 'string' ? raw : null;
  return text && text.trim() ? text.trim() : null;
}

/** Lines that say a command failed without saying why: exit codes, npm's script echo, Codex's exec header. */
const NOISE_LINE =
  /^(?:exit(?:ed)?(?: with)? (?:code|status)[:\s]*\d+|command (?:exited|failed) with (?:exit )?(?:code|status)[:\s]*\d+|process exited with code \d+|\(no output\)|error:?|> .*|(?:Chunk ID|Wall time|Original token count|Output):.*|Process running with session ID \d+)$/i;
const NAMED_ERROR = /(?:^\s*[\w.$]*(?:Error|Exception)\b|\berror(?:\[\w+\])?(?: TS\d+)?:|^fatal:)/;
/** Verdict lines of test runners and npm: an error, but the line after them usually says which. */
const VERDICT_ERROR = /^(?:FAIL\b|npm ERR!)/;
const ERRORISH = /\b(?:error|exception|failed|failure|fatal|cannot|can't|could not|not found|no such file|denied|refused|invalid|panic|timed out|ENOENT|EACCES)\b/i;

/**
 * The line of a failed tool's output that says what went wrong: a named error
 * ("TypeError: …", "x.ts(3,1): error TS2345: …", "fatal: …") first, else the
 * first line that sounds like an error, else the last line that is not only
 * an exit code (build tools end with their verdict); with nothing else, the
 * exit code lines themselves.
 */
function errorLineOf(output: string): string {
  // Some tools relay output as a JSON string: its line breaks arrive as a backslash and an n.
  const all = output
    .replace(/\\n/g, '\n')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const lines = all.filter((l) => !NOISE_LINE.test(l) && !/^Traceback \(most recent call last\)/.test(l));
  const line = lines.find((l) => NAMED_ERROR.test(l)) ?? lines.find((l) => VERDICT_ERROR.test(l)) ?? lines.find((l) => ERRORISH.test(l)) ?? lines[lines.length - 1] ?? all.join(', ');
  return firstLineOf(line || '(no output)', 240);
}

/** Errors counted by their wording with the numbers masked, so the same failure on line 12 and line 40 is one entry. */
function errorKey(line: string): string {
  return line.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');
}

interface Counted {
  text: string;
  count: number;
}

function countInto(map: Map<string, Counted>, key: string, text: string): void {
  const c = map.get(key);
  // Re-inserted so the map's order is the order of the latest occurrence.
  map.delete(key);
  map.set(key, { text, count: (c?.count ?? 0) + 1 });
}

export function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l === '' ? '>' : `> ${l}`))
    .join('\n');
}

/** A distinct error, where it happened, and whether a later attempt went through. */
export interface ErrorFact extends Counted {
  /** The tool (or "reply" for a failed model reply). */
  tool: string;
  /** The command or path the failing call named, when it named one. */
  subject: string | null;
  /** A later call of the same command (or the same tool on the same path) succeeded; null when nothing was retried. */
  fixed: boolean | null;
  /** The assistant's first explanation after it: a sentence that says why or what changed. */
  note: string | null;
  /** Index of the (latest) failing result in the span. */
  at: number;
}

export interface TodoItem {
  text: string;
  status: string;
}

export interface Facts {
  users: number;
  assistants: number;
  results: number;
  tools: Map<string, number>;
  commands: Map<string, Counted & { outcome: string; failures: number; lastFailure: string | null }>;
  errors: Map<string, Counted>;
  modified: Map<string, number>;
  read: Map<string, number>;
  lastReply: AssistantMessage | null;
  summaries: string[];
  /** Errors in order of their latest occurrence, with what became of them. */
  errorFacts: ErrorFact[];
  /** The latest todo or plan list a tool call wrote (Claude Code TodoWrite, Codex update_plan, …). */
  todos: TodoItem[] | null;
  /** The last few tool calls, oldest first, as `tool target` (what was being done at the cut). */
  lastSteps: string[];
}

/** What a call is about: its command, else the path or the first short string argument. */
export function callSubject(call: ToolCallPart): string | null {
  const cmd = commandOf(call);
  if (cmd) return firstLineOf(cmd, 160) + (cmd.includes('\n') ? ' …' : '');
  const paths = [...classifyToolCall(call).modified, ...classifyToolCall(call).read];
  if (paths[0]) return paths[0];
  for (const v of Object.values(call.arguments ?? {})) if (typeof v === 'string' && v.trim() && v.length <= 120 && !v.includes('\n')) return v.trim();
  return null;
}

const TODO_KEYS = ['todos', 'plan', 'tasks', 'items'] as const;

/** The list a todo or plan tool call writes, or null when the call is something else. */
function todoList(call: ToolCallPart): TodoItem[] | null {
  if (!/todo|plan|task/i.test(call.name)) return null;
  for (const key of TODO_KEYS) {
    const list = call.arguments?.[key];
    if (!Array.isArray(list)) continue;
    const items: TodoItem[] = [];
    for (const raw of list) {
      if (!raw || typeof raw !== 'object') continue;
      const o = raw as Record<string, unknown>;
      const text = [o.content, o.step, o.title, o.task, o.description].find((v): v is string => typeof v === 'string' && v.trim() !== '');
      if (text) items.push({ text: text.trim(), status: typeof o.status === 'string' ? o.status : '' });
    }
    if (items.length) return items;
  }
  return null;
}

/** Sentences that explain: why something failed, or what was changed about it. */
const EXPLAINS = /\b(?:because|the (?:issue|problem|error|bug|cause|fix) (?:is|was)|root cause|turns out|means|need(?:s)? to|should|instead|missing|wrong|doesn't|does not|isn't|wasn't|fix(?:ed)?|chang(?:e|ed)|renam|the file|the function|the type)\b/i;
const NOT_EXPLAINING = /^(?:let me|now let me|i'll|let's)\b/i;

function explanationAfter(all: readonly SummaryItem[], from: number): string | null {
  let replies = 0;
  for (let i = from + 1; i < all.length && replies < 3; i++) {
    const it = all[i]!;
    if (it.kind !== 'message') continue;
    if (it.message.role === 'user') return null;
    if (it.message.role !== 'assistant') continue;
    replies++;
    for (const p of it.message.content) {
      if (p.type !== 'text') continue;
      for (const s of p.text.replace(/```[\s\S]*?(?:```|$)/g, ' ').split(/(?<=[.!?])\s+|\n+/)) {
        const t = s.trim();
        if (t.length >= 24 && EXPLAINS.test(t) && !(NOT_EXPLAINING.test(t) && t.endsWith(':'))) return firstLineOf(t, 200);
      }
    }
  }
  return null;
}

const LAST_STEPS = 4;

/** Searches and listings: exit code 1 with no output means "nothing found", an answer rather than a failure. */
const SEARCH = /^(?:cd \S+ && )?(?:grep|rg|ag|ack|find|fd|ls|git grep|git log|git diff|git status|git show|which|test|\[)\b/;
const NOTHING_FOUND = /^(?:\(no output\)\s*)?(?:command exited with code 1|exit code 1|exit status 1)?\s*$/i;

/** A failed result that only says a search found nothing. */
function isNothingFound(call: ToolCallPart | undefined, output: string): boolean {
  if (!call) return false;
  const cmd = commandOf(call);
  return cmd !== null && SEARCH.test(cmd) && NOTHING_FOUND.test(output.replace(/\s+/g, ' ').trim());
}

export function gatherFacts(all: readonly SummaryItem[]): Facts {
  const f: Facts = {
    users: 0,
    assistants: 0,
    results: 0,
    tools: new Map(),
    commands: new Map(),
    errors: new Map(),
    modified: new Map(),
    read: new Map(),
    lastReply: null,
    summaries: [],
    errorFacts: [],
    todos: null,
    lastSteps: [],
  };
  const results = new Map<string, ToolResultMessage>();
  const calls = new Map<string, ToolCallPart>();
  for (const it of all) if (it.kind === 'message' && it.message.role === 'toolResult') results.set(it.message.toolCallId, it.message);
  const errorFacts = new Map<string, ErrorFact>();
  /** Open failures by what they were about (command, or tool and path): a later success there fixes them. */
  const open = new Map<string, ErrorFact[]>();
  const steps: string[] = [];
  all.forEach((it, at) => {
    if (it.kind !== 'message') {
      f.summaries.push(`${it.kind === 'branchSummary' ? 'Branch summary' : 'Earlier summary'}:\n${quote(truncateMiddle(stripFileFooter(it.summary), 1500))}`);
      return;
    }
    const m = it.message;
    if (m.role === 'user') f.users++;
    else if (m.role === 'toolResult') {
      f.results++;
      const call = calls.get(m.toolCallId);
      const subject = call ? callSubject(call) : null;
      const about = `${m.toolName}\u0000${subject ?? ''}`;
      if (m.isError && !isNothingFound(call, messageText(m))) {
        const line = errorLineOf(messageText(m));
        const key = `${m.toolName}\u0000${errorKey(line)}`;
        countInto(f.errors, key, `\`${m.toolName}\`: ${line}`);
        const prev = errorFacts.get(key);
        errorFacts.delete(key);
        const fact: ErrorFact = { text: line, count: (prev?.count ?? 0) + 1, tool: m.toolName, subject, fixed: null, note: explanationAfter(all, at) ?? prev?.note ?? null, at };
        errorFacts.set(key, fact);
        open.set(about, [...(open.get(about) ?? []).filter((e) => e !== prev), fact]);
      } else if (subject !== null) {
        for (const e of open.get(about) ?? []) e.fixed = true;
        open.delete(about);
      }
    } else {
      f.assistants++;
      if (messageText(m).trim()) f.lastReply = m;
      if (m.stopReason === 'error') {
        const line = firstLineOf(m.errorMessage ?? 'the reply failed', 240);
        countInto(f.errors, `assistant\u0000${errorKey(line)}`, `reply failed: ${line}`);
        const key = `reply\u0000${errorKey(line)}`;
        const prev = errorFacts.get(key);
        errorFacts.delete(key);
        errorFacts.set(key, { text: line, count: (prev?.count ?? 0) + 1, tool: 'reply', subject: null, fixed: null, note: null, at });
      }
      for (const p of m.content) {
        if (p.type !== 'toolCall') continue;
        calls.set(p.id, p);
        f.tools.set(p.name, (f.tools.get(p.name) ?? 0) + 1);
        const todos = todoList(p);
        if (todos) f.todos = todos;
        const subject = callSubject(p);
        steps.push(subject ? `${p.name} \`${subject.length > 100 ? `${subject.slice(0, 99)}…` : subject}\`` : p.name);
        const { read, modified } = classifyToolCall(p);
        for (const x of modified) f.modified.set(x, (f.modified.get(x) ?? 0) + 1);
        for (const x of read) f.read.set(x, (f.read.get(x) ?? 0) + 1);
        const cmd = commandOf(p);
        if (cmd) {
          const res = results.get(p.id);
          const failure = res?.isError && !isNothingFound(p, messageText(res)) ? errorLineOf(messageText(res)) : null;
          const outcome = !res ? 'no result' : failure !== null ? `failed: ${failure}` : 'ok';
          const shown = firstLineOf(cmd, 160) + (cmd.includes('\n') ? ' …' : '');
          const prev = f.commands.get(shown);
          f.commands.delete(shown);
          f.commands.set(shown, {
            text: shown,
            count: (prev?.count ?? 0) + 1,
            outcome,
            failures: (prev?.failures ?? 0) + (failure !== null ? 1 : 0),
            lastFailure: failure ?? prev?.lastFailure ?? null,
          });
        }
      }
    }
  });
  // A failure whose command or file was never tried again is open; one tried again and still failing is not fixed.
  for (const list of open.values()) for (const e of list) if (e.fixed === null && e.subject !== null) e.fixed = false;
  f.errorFacts = [...errorFacts.values()];
  f.lastSteps = steps.slice(-LAST_STEPS);
  return f;
}

/** The directory most commands start by changing to (agents prefix every command with it), when at least a third do. */
export function commonCd(commands: readonly string[]): string | null {
  const counts = new Map<string, number>();
  for (const c of commands) {
    const dir = /^cd (\S+) && /.exec(c)?.[1];
    if (dir) counts.set(dir, (counts.get(dir) ?? 0) + 1);
  }
  const [dir, n] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [null, 0];
  return dir && n * 3 >= commands.length ? dir : null;
}

