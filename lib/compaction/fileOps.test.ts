import { describe, expect, it } from 'vitest';
import { loadSessions } from '@/lib/testing/compactionData';
import { addDetails, addItems, classifyToolCall, createFileOps, pathsInPatch, stripFileFooter, toFileLists, withFileFooter } from './fileOps';
import type { SummaryItem } from './types';

/** The file lists a summary carries: which calls name files, and which of those files changed. */

describe('file lists from tool calls', () => {
  it('moves and renames list both ends; blank paths are ignored and paths are trimmed', () => {
    expect(classifyToolCall({ name: 'move_file', arguments: { path: ' /a/old.ts ', destination: '/a/new.ts' } })).toEqual({ read: [], modified: ['/a/old.ts', '/a/new.ts'] });
    expect(classifyToolCall({ name: 'rename_file', arguments: { file_path: '/x.ts', new_path: '/y.ts' } }).modified).toEqual(['/x.ts', '/y.ts']);
    expect(classifyToolCall({ name: 'write', arguments: { filePath: '/p.ts', newPath: '/q.ts', to: ' ' } }).modified).toEqual(['/p.ts', '/q.ts']);
    expect(classifyToolCall({ name: 'read', arguments: { path: '   ', file: '/f.txt', target_file: '', targetFile: '/t.txt' } }).read).toEqual(['/t.txt', '/f.txt']);
    expect(classifyToolCall({ name: 'Read', arguments: { path: 42 } })).toEqual({ read: [], modified: [] });
    // No arguments at all: nothing, and no crash.
    expect(classifyToolCall({ name: 'read', arguments: undefined as unknown as Record<string, unknown> })).toEqual({ read: [], modified: [] });
  });

  it('every agent’s read and write tool names are recognised, whatever their case', () => {
    const reads = ['read', 'read_file', 'ReadFile', 'view', 'view_file', 'cat', 'open', 'open_file', 'NotebookRead', 'notebook_read'];
    const writes = ['write', 'write_file', 'WriteFile', 'edit', 'edit_file', 'MultiEdit', 'multi_edit', 'create', 'create_file', 'str_replace', 'insert', 'NotebookEdit', 'notebook_edit', 'delete', 'delete_file', 'remove_file', 'move_file', 'rename_file'];
    for (const name of reads) expect(classifyToolCall({ name, arguments: { path: '/f' } }), name).toEqual({ read: ['/f'], modified: [] });
    for (const name of writes) expect(classifyToolCall({ name, arguments: { path: '/f' } }), name).toEqual({ read: [], modified: ['/f'] });
    for (const name of ['str_replace_editor', 'str_replace_based_edit_tool', 'text_editor', 'file_editor']) {
      expect(classifyToolCall({ name, arguments: { command: 'view', path: '/f' } }), name).toEqual({ read: ['/f'], modified: [] });
      expect(classifyToolCall({ name, arguments: { command: 'create', path: '/f' } }), name).toEqual({ read: [], modified: ['/f'] });
    }
    for (const name of ['apply_patch', 'applypatch', 'patch']) expect(classifyToolCall({ name, arguments: { input: '*** Add File: a.ts' } }).modified, name).toEqual(['a.ts']);
    // Every argument name agents use for the file.
    for (const key of ['path', 'file_path', 'filePath', 'notebook_path', 'notebookPath', 'target_file', 'targetFile', 'filename', 'file'])
      expect(classifyToolCall({ name: 'read', arguments: { [key]: '/k' } }).read, key).toEqual(['/k']);
    for (const key of ['destination', 'new_path', 'newPath', 'to']) expect(classifyToolCall({ name: 'move_file', arguments: { [key]: '/d' } }).modified, key).toEqual(['/d']);
    // Not file tools: searches, shells, fetches.
    for (const name of ['grep', 'glob', 'bash', 'web_fetch', 'ls']) expect(classifyToolCall({ name, arguments: { path: '/f' } }), name).toEqual({ read: [], modified: [] });
  });

  it('editor tools read only on "view"; any other or no command writes', () => {
    expect(classifyToolCall({ name: 'text_editor', arguments: { command: 'VIEW', path: '/v' } })).toEqual({ read: ['/v'], modified: [] });
    expect(classifyToolCall({ name: 'file_editor', arguments: { command: 'insert', path: '/i' } })).toEqual({ read: [], modified: ['/i'] });
    expect(classifyToolCall({ name: 'file_editor', arguments: { command: 7, path: '/n' } })).toEqual({ read: [], modified: ['/n'] });
  });

  it('patches: the envelope names (update, add, delete, move) and unified diff targets, never /dev/null', () => {
    const envelope = '*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: src/b.ts\n*** Delete File: src/c.ts\n*** Add File:  src/d.ts \n*** End Patch';
    expect(pathsInPatch(envelope)).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts']);
    const diff = '--- a/lib/x.ts\n+++ b/lib/x.ts\n@@ -1 +1 @@\n-a\n+b\n--- a/gone.ts\n+++ /dev/null\n--- /dev/null\n+++ new.ts\n';
    expect(pathsInPatch(diff)).toEqual(['lib/x.ts', 'new.ts']);
    // The patch text may come as `patch` or `diff`, and a patch tool may name a path argument too.
    expect(classifyToolCall({ name: 'patch', arguments: { path: '/repo', diff } }).modified).toEqual(['/repo', 'lib/x.ts', 'new.ts']);
    expect(classifyToolCall({ name: 'applypatch', arguments: { patch: envelope } }).modified).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts']);
    expect(classifyToolCall({ name: 'apply_patch', arguments: {} }).modified).toEqual([]);
  });

  it('earlier lists are carried even when a summary had none; only assistant tool calls add to them', () => {
    const ops = createFileOps();
    addDetails(ops, undefined);
    addDetails(ops, {} as { readFiles: string[]; modifiedFiles: string[] });
    addDetails(ops, { readFiles: ['/r'], modifiedFiles: [] });
    const items: SummaryItem[] = [
      { kind: 'message', entryId: 'u', message: { role: 'user', content: [{ type: 'text', text: 'edit /u.ts please' }] } },
      { kind: 'branchSummary', entryId: 'b', summary: 'x' },
      { kind: 'message', entryId: 'a', message: { role: 'assistant', content: [{ type: 'text', text: 'ok' }, { type: 'toolCall', id: 'c', name: 'edit', arguments: { path: '/e.ts' } }] } },
    ];
    addItems(ops, items);
    expect(toFileLists(ops)).toEqual({ readFiles: ['/r'], modifiedFiles: ['/e.ts'] });
  });

  it('the footer strips from anywhere after the text, read and modified lists alike', () => {
    const lists = { readFiles: ['/a'], modifiedFiles: ['/b'] };
    const s = withFileFooter('## Goal\nx\n\n\n', lists);
    expect(s).toBe('## Goal\nx\n\n<read-files>\n/a\n</read-files>\n\n<modified-files>\n/b\n</modified-files>');
    expect(stripFileFooter(`${s}\n\n## User messages\nmore`)).toBe('## Goal\nx\n\n## User messages\nmore');
    expect(withFileFooter('only modified', { readFiles: [], modifiedFiles: ['/m'] })).toBe('only modified\n\n<modified-files>\n/m\n</modified-files>');
  });

  it('on the real Codex rollout, apply_patch calls list the files they changed', () => {
    const ops = createFileOps();
    for (const s of loadSessions('codexRollout'))
      for (const e of s.path) if (e.type === 'message') addItems(ops, [{ kind: 'message', entryId: e.id, message: e.message }]);
    const lists = toFileLists(ops);
    expect(lists.modifiedFiles.length).toBeGreaterThan(0);
    for (const f of lists.modifiedFiles) {
      expect(f).not.toBe('/dev/null');
      expect(f.trim()).toBe(f);
    }
    for (const f of lists.readFiles) expect(lists.modifiedFiles).not.toContain(f);
  });
});
