import { describe, expect, it } from 'vitest';
import { classifyToolCall, fileFooter, pathsInPatch, stripFileFooter } from './fileOps';

/** Paths from tool calls and patches at their edges, and the footer taken out of the middle of a text. */

describe('paths in a patch', () => {
  it('envelope headers and diff headers only at the start of a line, trimmed, never empty', () => {
    expect(pathsInPatch('note: *** Update File: a.ts\nsee *** Move to: b.ts\nx +++ b/c.ts')).toEqual([]);
    expect(pathsInPatch('*** Update File:  \n*** Move to: d.ts\n+++ b/e.ts  \n+++ /dev/null')).toEqual(['d.ts', 'e.ts']);
  });
});

describe('classifyToolCall', () => {
  it('a move names its destination, trimmed; an unknown tool touches nothing', () => {
    expect(classifyToolCall({ name: 'move_file', arguments: { path: 'a.ts', destination: ' b.ts ' } })).toEqual({ read: [], modified: ['a.ts', 'b.ts'] });
    expect(classifyToolCall({ name: 'frobnicate', arguments: { path: 'x.ts' } })).toEqual({ read: [], modified: [] });
    expect(classifyToolCall({ name: 'apply_patch', arguments: { input: '*** Update File: a.ts' } })).toEqual({ read: [], modified: ['a.ts'] });
  });
});

describe('stripFileFooter', () => {
  it('lists in the middle of a text leave one line break', () => {
    expect(stripFileFooter('A\n<read-files>\nx.ts\n</read-files>\nB')).toBe('A\nB');
  });
});

describe('fileFooter', () => {
  it('one path per line in each list', () => {
    expect(fileFooter({ readFiles: ['a.ts', 'b.ts'], modifiedFiles: ['c.ts', 'd.ts'] })).toBe('<read-files>\na.ts\nb.ts\n</read-files>\n\n<modified-files>\nc.ts\nd.ts\n</modified-files>');
  });
});
