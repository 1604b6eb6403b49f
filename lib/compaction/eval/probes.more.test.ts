import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { coverage, probesFor, totalCoverage, type Probe } from './probes';

/**
 * The probe generator at its edges: which messages and parts a probe is drawn from, how much of a
 * line it asks for, the wording of each question, and how strictly an answer must match.
 */

let n = 0;
type Message = Extract<SessionEntry, { type: 'message' }>['message'];
const entry = (message: Message): SessionEntry => ({ type: 'message', id: `m${++n}`, parentId: null, timestamp: 0, message });
const user = (...texts: string[]) => entry({ role: 'user', content: texts.map((text) => ({ type: 'text' as const, text })) });
const reply = (text: string) => entry({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (name: string, args: Record<string, unknown>) => entry({ role: 'assistant', content: [{ type: 'toolCall', id: `c${++n}`, name, arguments: args }] });
const of = (probes: Probe[], kind: Probe['kind']) => probes.filter((p) => p.kind === kind);

describe('where probes come from', () => {
  it('only user messages are requests: replies, tool results and other entries never become recall probes', () => {
    const toolResult = entry({ role: 'toolResult', toolCallId: 'c0', toolName: 'bash', content: [{ type: 'text', text: 'We decided to use `pnpm` instead of `npm`.' }], isError: false });
    const summary: SessionEntry = { type: 'compaction', id: `m${++n}`, parentId: null, timestamp: 0, summary: 'Earlier work', firstKeptEntryId: 'x', tokensBefore: 10, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } };
    const probes = probesFor([reply('Add a CSV export please'), toolResult, summary, user('Add a CSV export')]);
    expect(of(probes, 'recall').map((p) => p.expect)).toEqual([['add a csv export']]);
    // A tool result's text is not the assistant's decision either.
    expect(of(probes, 'decision')).toEqual([]);
  });

  it('a request is its text parts, each on its own lines; other parts add nothing; an empty one is no request', () => {
    const image = entry({ role: 'user', content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'text', text: 'Add a CSV export' }, { type: 'text', text: 'It must keep the column order' }] });
    const probes = probesFor([image, user('   ', '\n\t'), entry({ role: 'user', content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] })]);
    expect(of(probes, 'recall').map((p) => p.expect)).toEqual([['add a csv export']]);
    expect(of(probes, 'constraint').map((p) => p.expect)).toEqual([['it must keep the column order']]);
    expect(of(probes, 'continuation').map((p) => p.expect)).toEqual([['add a csv export']]);
  });

  it('lines are trimmed and blank ones skipped before the first line is taken', () => {
    const probes = probesFor([user('\n\n   Fix the login bug   \n\n   You must not change the schema   ')]);
    expect(of(probes, 'recall')[0]!.question).toBe('Did the user ask: “Fix the login bug”?');
    expect(of(probes, 'constraint')[0]!.question).toBe('Which constraint did the user state: “You must not change the schema”?');
  });

  it('a constraint line is 12 to 240 characters long, both ends included', () => {
    const line = (len: number) => `only ${'x'.repeat(len - 5)}`;
    for (const [len, kept] of [
      [11, false],
      [12, true],
      [240, true],
      [241, false],
    ] as const)
      expect(of(probesFor([user('Title', line(len))]), 'constraint').length, `${len} characters`).toBe(kept ? 1 : 0);
  });
});

describe('what a probe asks for', () => {
  it('the first 80 characters of a long request, normalised, in the question and the expected answer', () => {
    const long = `Refactor ${'the payment module '.repeat(10)}end`;
    const probes = probesFor([user(long)]);
    const [recall] = of(probes, 'recall');
    expect(recall!.question).toBe(`Did the user ask: “${long.slice(0, 80)}”?`);
    expect(recall!.expect).toEqual([long.toLowerCase().slice(0, 80).trim()]);
    expect(of(probes, 'continuation')[0]!.question).toBe(`What is the latest open request? (“${long.slice(0, 80)}”)`);
    // A summary that kept only the start of the request still answers it.
    expect(totalCoverage(coverage(long.slice(0, 85), probes))).toEqual({ hit: 2, total: 2 });
  });

  it('the continuation probe is the last request, not the first', () => {
    const probes = probesFor([user('Set up the project'), reply('Done.'), user('Now add tests')]);
    expect(of(probes, 'continuation')).toEqual([{ kind: 'continuation', question: 'What is the latest open request? (“Now add tests”)', expect: ['now add tests'] }]);
  });

  it('a modified file is asked by its whole path', () => {
    const probes = probesFor([call('write_file', { path: '/repo/src/App.tsx' })]);
    expect(of(probes, 'artifact')).toEqual([{ kind: 'artifact', question: 'Was /repo/src/App.tsx modified?', expect: ['/repo/src/app.tsx'] }]);
  });

  it('a decision is one sentence (split after . ! ? and at line breaks), asked in full up to 120 characters, with at most its first two names, trimmed', () => {
    const text = 'First we read the code. Then we decided to use ` zod ` with `valibot` and `yup` as fallbacks! Nothing else\n   We also chose `tsx`';
    const decisions = of(probesFor([reply(text)]), 'decision');
    expect(decisions.map((d) => d.question)).toEqual(['What was decided: “Then we decided to use ` zod ` with `valibot` and `yup` as fallbacks!”?', 'What was decided: “We also chose `tsx`”?']);
    expect(decisions.map((d) => d.expect)).toEqual([['zod', 'valibot'], ['tsx']]);
    const long = `We decided on \`redis\` because ${'it is fast and simple '.repeat(8)}.`;
    expect(of(probesFor([reply(long)]), 'decision')[0]!.question).toBe(`What was decided: “${long.slice(0, 120)}”?`);
  });

  it('a name made of markdown marks is matched by its letters', () => {
    const probes = of(probesFor([reply('We decided to accept `**kwargs` in the handler.')]), 'decision');
    expect(probes[0]!.expect).toEqual(['kwargs']);
    expect(coverage('kwargs are passed through', probes).decision).toEqual({ hit: 1, total: 1 });
  });
});

describe('which files count as modified', () => {
  it('paths are trimmed; blank or non-text arguments are ignored without failing', () => {
    const probes = probesFor([
      call('edit_file', { path: '  src/a.ts  ', file_count: 3, options: { path: 'nested/ignored.ts' }, target: '   ' }),
      call('apply_patch', { input: '*** Update File: src/b.ts   \n@@\n-old\n+new' }),
    ]);
    expect(of(probes, 'artifact').map((p) => p.expect[0])).toEqual(['src/a.ts', 'src/b.ts']);
    expect(of(probes, 'artifact').map((p) => p.question)).toEqual(['Was src/a.ts modified?', 'Was src/b.ts modified?']);
  });

  it('only a command that is exactly "view" is a read', () => {
    const probes = probesFor([
      call('str_replace_editor', { command: 'view', path: '/seen.py' }),
      call('str_replace_editor', { command: 'preview', path: '/a.md' }),
      call('str_replace_editor', { command: 'view_and_replace', path: '/b.md' }),
    ]);
    expect(of(probes, 'artifact').map((p) => p.expect[0])).toEqual(['/a.md', '/b.md']);
  });

  it('patch headers count only at the start of a line', () => {
    const patch = ['*** Begin Patch', '*** Add File: docs/new.md', '+See the note: *** Update File: old.ts was removed', '*** Move to: docs/moved.md', '*** End Patch'].join('\n');
    expect(of(probesFor([call('apply_patch', { input: patch })]), 'artifact').map((p) => p.expect[0])).toEqual(['docs/new.md', 'docs/moved.md']);
  });
});

describe('answers', () => {
  it('a probe with two expected names is answered only when both occur', () => {
    const probes = of(probesFor([reply('We chose `postgres` and `drizzle` for storage.')]), 'decision');
    expect(coverage('postgres only', probes).decision).toEqual({ hit: 0, total: 1 });
    expect(coverage('Postgres with Drizzle', probes).decision).toEqual({ hit: 1, total: 1 });
  });
});
