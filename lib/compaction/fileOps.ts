import type { ChatMessage, SummaryDetails, ToolCallPart } from '@/lib/session/types';
import type { FileLists, SummaryItem } from './types';

/**
 * File tracking for summaries: which files the summarised part of the
 * conversation read and changed, carried from one compaction (or branch
 * summary) to the next so the list stays complete after many cycles.
 *
 * Only tool calls with an explicit path argument are counted. Shell commands
 * (`bash`, `Bash`) are not parsed: guessing paths out of `sed -i` or `cat > x`
 * produces more noise than signal, and the seeds (pi, Opal) don't either.
 */

export interface FileOps {
  read: Set<string>;
  modified: Set<string>;
}

export function createFileOps(): FileOps {
  return { read: new Set(), modified: new Set() };
}

// Names seen in the fixtures (pi: read/edit/write; Claude Code: Read/Edit/MultiEdit/Write/NotebookEdit)
// plus the common shapes of other agents (read_file, create_file, apply_patch, str_replace_editor).
const READ_TOOLS = new Set(['read', 'read_file', 'readfile', 'view', 'view_file', 'cat', 'open', 'open_file', 'notebookread', 'notebook_read']);
const MODIFY_TOOLS = new Set([
  'write',
  'write_file',
  'writefile',
  'edit',
  'edit_file',
  'multiedit',
  'multi_edit',
  'create',
  'create_file',
  'str_replace',
  'insert',
  'notebookedit',
  'notebook_edit',
  'delete',
  'delete_file',
  'remove_file',
  'move_file',
  'rename_file',
]);
/** Editor tools whose `command` argument says whether they read or write. */
const EDITOR_TOOLS = new Set(['str_replace_editor', 'str_replace_based_edit_tool', 'text_editor', 'file_editor']);
const PATCH_TOOLS = new Set(['apply_patch', 'applypatch', 'patch']);

const PATH_KEYS = ['path', 'file_path', 'filePath', 'notebook_path', 'notebookPath', 'target_file', 'targetFile', 'filename', 'file'];

function pathsOf(args: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const k of PATH_KEYS) {
    const v = args[k];
    if (typeof v === 'string' && v.trim() !== '') out.push(v.trim());
  }
  // move/rename carry a destination too
  for (const k of ['destination', 'new_path', 'newPath', 'to']) {
    const v = args[k];
    if (typeof v === 'string' && v.trim() !== '') out.push(v.trim());
  }
  return out;
}

/** Paths named in an apply_patch envelope ("*** Update File: x", "*** Add File: x", "*** Delete File: x", "*** Move to: x"). */
export function pathsInPatch(patch: string): string[] {
  const out: string[] = [];
  const re = /^\*\*\* (?:Update|Add|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;
  for (let m = re.exec(patch); m; m = re.exec(patch)) {
    const p = (m[1] ?? m[2] ?? '').trim();
    if (p) out.push(p);
  }
  // Unified diffs: "+++ b/path"
  const diff = /^\+\+\+ (?:b\/)?(.+)$/gm;
  for (let m = diff.exec(patch); m; m = diff.exec(patch)) {
    const p = (m[1] ?? '').trim();
    if (p && p !== '/dev/null') out.push(p);
  }
  return out;
}

export function classifyToolCall(call: Pick<ToolCallPart, 'name' | 'arguments'>): { read: string[]; modified: string[] } {
  const name = call.name.toLowerCase();
  const args = call.arguments ?? {};
  if (READ_TOOLS.has(name)) return { read: pathsOf(args), modified: [] };
  if (MODIFY_TOOLS.has(name)) return { read: [], modified: pathsOf(args) };
  if (EDITOR_TOOLS.has(name)) {
    const cmd = typeof args.command === 'string' ? args.command.toLowerCase() : '';
    return cmd === 'view' ? { read: pathsOf(args), modified: [] } : { read: [], modified: pathsOf(args) };
  }
  if (PATCH_TOOLS.has(name)) {
    const text = [args.input, args.patch, args.diff].find((v): v is string => typeof v === 'string') ?? '';
    return { read: [], modified: [...pathsOf(args), ...pathsInPatch(text)] };
  }
  return { read: [], modified: [] };
}

export function addMessage(ops: FileOps, m: ChatMessage): void {
  if (m.role !== 'assistant') return;
  for (const p of m.content) {
    if (p.type !== 'toolCall') continue;
    const { read, modified } = classifyToolCall(p);
    for (const f of read) ops.read.add(f);
    for (const f of modified) ops.modified.add(f);
  }
}

/** Carries the lists of an earlier summary forward (cumulative tracking). */
export function addDetails(ops: FileOps, details: Pick<SummaryDetails, 'readFiles' | 'modifiedFiles'> | undefined): void {
  if (!details) return;
  for (const f of details.readFiles ?? []) ops.read.add(f);
  for (const f of details.modifiedFiles ?? []) ops.modified.add(f);
}

export function addItems(ops: FileOps, items: readonly SummaryItem[]): void {
  for (const it of items) if (it.kind === 'message') addMessage(ops, it.message);
}

/**
 * Sorted lists; a file read and also modified counts as modified only (Opal):
 * the modified list already tells the model the file matters, listing it twice
 * costs tokens and suggests two different files.
 */
export function toFileLists(ops: FileOps): FileLists {
  const modifiedFiles = [...ops.modified].sort();
  const readFiles = [...ops.read].filter((f) => !ops.modified.has(f)).sort();
  return { readFiles, modifiedFiles };
}

const FOOTER_RE = /\n*<read-files(?: root="[^"\n]*")?>[\s\S]*?<\/read-files>\s*|\n*<modified-files(?: root="[^"\n]*")?>[\s\S]*?<\/modified-files>\s*/g;

/**
 * The root the file lists are written under, when stating it once saves room:
 * agents work in one project, and its absolute prefix repeated on every line
 * was a third of a small summary. One level above the files' common
 * directory, so every path keeps its project's name (`app/mix.exs`, not a
 * bare `mix.exs` that could be any project's). Null for relative paths, a
 * single file, or a root too shallow to be worth it.
 */
export function commonRoot(paths: readonly string[]): string | null {
  if (paths.length < 2 || !paths.every((p) => p.startsWith('/'))) return null;
  let parts = paths[0]!.split('/').slice(0, -1);
  for (const p of paths.slice(1)) {
    const q = p.split('/');
    let i = 0;
    while (i < parts.length && i < q.length - 1 && parts[i] === q[i]) i++;
    parts = parts.slice(0, i);
  }
  parts = parts.slice(0, -1);
  // "/" or "/Users" says nothing; a project's parent is a few levels down.
  return parts.filter(Boolean).length >= 2 ? parts.join('/') : null;
}

/** The `<read-files>` / `<modified-files>` footer (paths under a shared root written relative to it); empty when no files were touched. */
export function fileFooter(lists: FileLists): string {
  const root = commonRoot([...lists.readFiles, ...lists.modifiedFiles]);
  const attr = root ? ` root="${root}"` : '';
  const rel = (p: string) => (root ? p.slice(root.length + 1) : p);
  const parts: string[] = [];
  if (lists.readFiles.length) parts.push(`<read-files${attr}>\n${lists.readFiles.map(rel).join('\n')}\n</read-files>`);
  if (lists.modifiedFiles.length) parts.push(`<modified-files${attr}>\n${lists.modifiedFiles.map(rel).join('\n')}\n</modified-files>`);
  return parts.join('\n\n');
}

const LIST_RE = /<(read-files|modified-files)(?: root="([^"\n]*)")?>\n?([\s\S]*?)<\/\1>/g;

/** A summary split into its text and the file lists of its footer (full paths), for showing the lists as lists. */
export function splitFileFooter(summary: string): { body: string; readFiles: string[]; modifiedFiles: string[] } {
  const out = { body: stripFileFooter(summary), readFiles: [] as string[], modifiedFiles: [] as string[] };
  for (const m of summary.matchAll(LIST_RE)) {
    const root = m[2];
    const files = m[3]!
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((f) => (root && !f.startsWith('/') ? `${root}/${f}` : f));
    (m[1] === 'read-files' ? out.readFiles : out.modifiedFiles).push(...files);
  }
  return out;
}

/**
 * A summary without its file footer. The footer of an earlier summary is not
 * fed back to the model: the lists travel in `details` and a fresh, merged
 * footer is appended to the new summary.
 */
export function stripFileFooter(summary: string): string {
  return summary.replace(FOOTER_RE, '\n').trimEnd();
}

export function withFileFooter(text: string, lists: FileLists): string {
  const footer = fileFooter(lists);
  const body = text.trimEnd();
  return footer ? `${body}\n\n${footer}` : body;
}
