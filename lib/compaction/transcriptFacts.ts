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
const NAMED_ERROR = /(?:^\s*[\w.$]*(?:Error|Exception)\b|\berror(?:\[\w+\])?(?: TS\d+)?:|^fatal:|^FAIL\b|^npm ERR!)/;
const ERRORISH = /\b(?:error|exception|failed|failure|fatal|cannot|can't|could not|not found|no such file|denied|refused|invalid|panic|timed out|ENOENT|EACCES)\b/i;

/**
 * The line of a failed tool's output that says what went wrong: a named error
 * ("TypeError: …", "x.ts(3,1): error TS2345: …", "fatal: …") first, else the
 * first line that sounds like an error, else the last line that is not only
 * an exit code (build tools end with their verdict); with nothing else, the
 * exit code lines themselves.
 */
function errorLineOf(output: string): string {
  const all = output
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const lines = all.filter((l) => !NOISE_LINE.test(l) && !/^Traceback \(most recent call last\)/.test(l));
  const line = lines.find((l) => NAMED_ERROR.test(l)) ?? lines.find((l) => ERRORISH.test(l)) ?? lines[lines.length - 1] ?? all.join(', ');
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
}

export function gatherFacts(all: readonly SummaryItem[]): Facts {
  const f: Facts = { users: 0, assistants: 0, results: 0, tools: new Map(), commands: new Map(), errors: new Map(), modified: new Map(), read: new Map(), lastReply: null, summaries: [] };
  const results = new Map<string, ToolResultMessage>();
  for (const it of all) if (it.kind === 'message' && it.message.role === 'toolResult') results.set(it.message.toolCallId, it.message);
  for (const it of all) {
    if (it.kind !== 'message') {
      f.summaries.push(`${it.kind === 'branchSummary' ? 'Branch summary' : 'Earlier summary'}:\n${quote(truncateMiddle(stripFileFooter(it.summary), 1500))}`);
      continue;
    }
    const m = it.message;
    if (m.role === 'user') f.users++;
    else if (m.role === 'toolResult') {
      f.results++;
      if (m.isError) {
        const line = errorLineOf(messageText(m));
        countInto(f.errors, `${m.toolName}\u0000${errorKey(line)}`, `\`${m.toolName}\`: ${line}`);
      }
    } else {
      f.assistants++;
      if (messageText(m).trim()) f.lastReply = m;
      if (m.stopReason === 'error') {
        const line = firstLineOf(m.errorMessage ?? 'the reply failed', 240);
        countInto(f.errors, `assistant\u0000${errorKey(line)}`, `reply failed: ${line}`);
      }
      for (const p of m.content) {
        if (p.type !== 'toolCall') continue;
        f.tools.set(p.name, (f.tools.get(p.name) ?? 0) + 1);
        const { read, modified } = classifyToolCall(p);
        for (const x of modified) f.modified.set(x, (f.modified.get(x) ?? 0) + 1);
        for (const x of read) f.read.set(x, (f.read.get(x) ?? 0) + 1);
        const cmd = commandOf(p);
        if (cmd) {
          const res = results.get(p.id);
          const failure = res?.isError ? errorLineOf(messageText(res)) : null;
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
  }
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

