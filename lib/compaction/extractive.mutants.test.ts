import { describe, expect, it } from 'vitest';
import type { AssistantMessage, ChatMessage } from '@/lib/session/types';
import { EXTRACTIVE_LABEL, extractiveSummary } from './extractive';
import type { FileLists, SummaryItem } from './types';

/**
 * The extractive summary's layout, stated exactly on small hand-made spans:
 * which sections appear (and which do not when they would be empty), their
 * wording, their order, and how each one is cut to its share of the budget.
 */

const none: FileLists = { readFiles: [], modifiedFiles: [] };
const item = (entryId: string, message: ChatMessage): SummaryItem => ({ kind: 'message', entryId, message });
const user = (id: string, text: string) => item(id, { role: 'user', content: [{ type: 'text', text }] });
const reply = (id: string, text: string, extra: Partial<AssistantMessage> = {}) => item(id, { role: 'assistant', content: [{ type: 'text', text }], ...extra });
const call = (id: string, callId: string, name: string, args: Record<string, unknown>) =>
  item(id, { role: 'assistant', content: [{ type: 'toolCall', id: callId, name, arguments: args }] });
const result = (id: string, callId: string, toolName: string, text: string, isError = false) =>
  item(id, { role: 'toolResult', toolCallId: callId, toolName, content: [{ type: 'text', text }], isError });
const bash = (n: number, command: string, output: string | null, isError = false): SummaryItem[] => [
  call(`a${n}`, `c${n}`, 'bash', { command }),
  ...(output === null ? [] : [result(`t${n}`, `c${n}`, 'bash', output, isError)]),
];

/** The section starting with `heading` (up to the next blank line before a heading, or the end). */
function section(text: string, heading: string): string | null {
  const at = text.indexOf(`\n\n${heading}`);
  if (at < 0) return null;
  const rest = text.slice(at + 2);
  const end = rest.indexOf('\n\n## ');
  return end < 0 ? rest : rest.slice(0, end);
}

const NEXT = '## Next steps (the latest requests; the kept messages show how far they got)';
const LAST = '## Last state (the last assistant reply summarised here)';

describe('extractive summary: the layout of small spans, exactly', () => {
  it('one request: label, headline, goal, next steps and the user messages; no empty section', () => {
    const text = extractiveSummary({ kind: 'compaction', items: [user('u1', 'hello')], fileOps: none });
    expect(text).toBe(
      [
        EXTRACTIVE_LABEL,
        '',
        'The summarised part: 1 item (1 user, 0 assistant, 0 tool results).',
        '',
        '## Goal (the first request)',
        '> hello',
        '',
        NEXT,
        '> hello',
        '',
        '## User messages',
        '_All 1 user message of the summarised conversation, oldest first (1 verbatim); kept by the app, not paraphrased._',
        '',
        '1.',
        '> hello',
      ].join('\n'),
    );
  });

  it('no request: no goal, no next steps, no user messages; the last reply trimmed and quoted', () => {
    const text = extractiveSummary({ kind: 'compaction', items: [reply('a1', 'All done.\n\n')], fileOps: none });
    expect(text).toBe([EXTRACTIVE_LABEL, '', 'The summarised part: 1 item (0 user, 1 assistant, 0 tool results).', '', LAST, '> All done.'].join('\n'));
  });

  it('a span with tools, commands, errors, files and a reply: every section in order, worded exactly', () => {
    const items: SummaryItem[] = [
      user('u1', 'Set up the build'),
      call('a1', 'r1', 'read', { path: '/r/a.ts' }),
      result('t1', 'r1', 'read', 'export const a = 1;'),
      call('a2', 'e1', 'edit', { path: '/r/b.ts' }),
      result('t2', 'e1', 'edit', 'ok'),
      call('a3', 'r2', 'read', { path: '/r/c.ts' }),
      call('a4', 'r3', 'read', { path: '/r/b.ts' }),
      call('a5', 'r4', 'read', { path: '/r/a.ts' }),
      ...bash(6, 'cd /r && npm test', 'FAIL src/x.test.ts\nexit code 1', true),
      user('u2', 'Fix the test'),
      ...bash(7, 'cd /r && npm test', 'all passed'),
      ...bash(8, 'cd /r && make lint', 'error: missing semicolon', true),
      ...bash(9, 'cd /r && git status', 'clean'),
      ...bash(10, 'ls /tmp', null),
      reply('a11', 'All green now.'),
    ];
    const text = extractiveSummary({ kind: 'compaction', items, fileOps: { readFiles: ['/r/a.ts', '/r/c.ts'], modifiedFiles: ['/r/b.ts'] } });
    // 5 tool calls of bash, 4 of read, 1 of edit; 5 results (the last command has none).
    expect(text).toBe(
      [
        EXTRACTIVE_LABEL,
        '',
        `The summarised part: ${items.length} items (2 user, 11 assistant, 6 tool results; tools: bash ×5, read ×4, edit ×1).`,
        '',
        '## Goal (the first request)',
        '> Set up the build',
        '',
        NEXT,
        '> Set up the build',
        '',
        '> Fix the test',
        '',
        '## Files touched here',
        'Modified: `/r/b.ts`',
        'Read: `/r/a.ts` (×2), `/r/c.ts`',
        '(Every file touched so far is listed at the end.)',
        '',
        '## Commands run (latest outcome; in `/r` unless they say otherwise)',
        '- `npm test` (×2) → ok; failed 1× before, last: FAIL src/x.test.ts',
        '- `make lint` → failed: error: missing semicolon',
        '- `git status` → ok',
        '- `ls /tmp` → no result',
        '',
        '## Errors seen (each distinct error once)',
        '- `bash`: FAIL src/x.test.ts',
        '- `bash`: error: missing semicolon',
        '',
        LAST,
        '> All green now.',
        '',
        '## User messages',
        '_All 2 user messages of the summarised conversation, oldest first (2 verbatim); kept by the app, not paraphrased._',
        '',
        '1.',
        '> Set up the build',
        '2.',
        '> Fix the test',
        '',
        '<read-files>',
        '/r/a.ts',
        '/r/c.ts',
        '</read-files>',
        '',
        '<modified-files>',
        '/r/b.ts',
        '</modified-files>',
      ].join('\n'),
    );
  });

  it('files: only modified ones, or only read ones, each list without the other', () => {
    const modified = extractiveSummary({ kind: 'compaction', items: [call('a1', 'e1', 'write', { path: '/x.ts' })], fileOps: none });
    expect(section(modified, '## Files touched here')).toBe('## Files touched here\nModified: `/x.ts`\n(Every file touched so far is listed at the end.)');
    const read = extractiveSummary({ kind: 'compaction', items: [call('a1', 'r1', 'read', { path: '/y.ts' }), call('a2', 'r2', 'read', { path: '/y.ts' })], fileOps: none });
    expect(section(read, '## Files touched here')).toBe('## Files touched here\nRead: `/y.ts` (×2)\n(Every file touched so far is listed at the end.)');
  });

  it('commands without a common directory: plain heading, each command as run', () => {
    const text = extractiveSummary({ kind: 'compaction', items: [...bash(1, 'make', 'ok'), ...bash(2, 'cd /a && make', 'ok'), ...bash(3, 'ls', 'x'), ...bash(4, 'pwd', '/')], fileOps: none });
    expect(section(text, '## Commands run')).toBe('## Commands run (latest outcome)\n- `make` → ok\n- `cd /a && make` → ok\n- `ls` → ok\n- `pwd` → ok');
  });

  it('one tool result is singular in the headline', () => {
    const text = extractiveSummary({ kind: 'compaction', items: bash(1, 'make', 'done'), fileOps: none });
    expect(text).toContain('The summarised part: 2 items (0 user, 1 assistant, 1 tool result; tools: bash ×1).');
  });

  it('next steps: the latest three requests only, oldest of them first', () => {
    const items = ['one', 'two', 'three', 'four', 'five'].map((t, i) => user(`u${i}`, `step ${t}`));
    const text = extractiveSummary({ kind: 'compaction', items, fileOps: none });
    expect(section(text, NEXT)).toBe(`${NEXT}\n> step three\n\n> step four\n\n> step five`);
  });

  it('a split turn: its opener closes the next steps, after the latest requests', () => {
    const text = extractiveSummary({
      kind: 'compaction',
      items: [user('u1', 'first task')],
      turnPrefix: [user('u2', 'second task'), reply('a2', 'Working on it.')],
      fileOps: none,
    });
    expect(section(text, NEXT)).toBe(`${NEXT}\n> first task\n\nThe kept messages continue a turn that began with:\n> second task`);
    // Only the opener: no blank line before it.
    const only = extractiveSummary({ kind: 'compaction', items: [reply('a1', 'Hi.')], turnPrefix: [user('u2', 'go on')], fileOps: none });
    expect(section(only, NEXT)).toBe(`${NEXT}\nThe kept messages continue a turn that began with:\n> go on`);
  });

  it('replies stopped early say so: interrupted and aborted ones, cut off ones, and ones broken off mid-sentence', () => {
    const last = (m: SummaryItem) => section(extractiveSummary({ kind: 'compaction', items: [m], fileOps: none }), LAST);
    expect(last(reply('a1', 'Stopped here.', { stopReason: 'interrupted' }))).toBe(`${LAST}\n> Stopped here.\n_(this reply was interrupted before it finished)_`);
    expect(last(reply('a1', 'Stopped here.', { stopReason: 'aborted' }))).toBe(`${LAST}\n> Stopped here.\n_(this reply was interrupted before it finished)_`);
    expect(last(reply('a1', 'Stopped here.', { stopReason: 'length' }))).toBe(`${LAST}\n> Stopped here.\n_(this reply was cut off at the output limit)_`);
    expect(last(reply('a1', 'and then the', { stopReason: 'stop' }))).toBe(`${LAST}\n> and then the\n_(this reply ends mid-sentence)_`);
  });

  it('a goal known only by its first line (an earlier summary shortened it) says so', () => {
    const previous = '## Progress\nSome.\n\n## User messages\n_All 1 user message …_\n\n1. (first line only) Fix the login form';
    const text = extractiveSummary({ kind: 'compaction', items: [user('u2', 'and the tests')], previousSummary: previous, fileOps: none });
    expect(section(text, '## Goal')).toBe('## Goal (the first request)\n> Fix the login form _(first line only)_');
  });

  it('an earlier extractive summary: its label, goal, user messages and footer go; the rest one heading level down', () => {
    const previous = [
      EXTRACTIVE_LABEL,
      '',
      'The summarised part: 3 items (1 user, 1 assistant, 1 tool result).',
      '',
      '## Goal (the first request)',
      '> Write a README with ## Install',
      '> and a usage part',
      '',
      '## Commands run (latest outcome)',
      '- `make` → ok',
      'Use ## for headings.',
      '',
      '###### Deep',
      '',
      '## User messages',
      '_All 1 user message of the summarised conversation, oldest first (1 verbatim); kept by the app, not paraphrased._',
      '',
      '1.',
      '> Write a README with ## Install',
      '> and a usage part',
      '',
      '<read-files>',
      '/old.ts',
      '</read-files>',
    ].join('\n');
    const text = extractiveSummary({ kind: 'compaction', items: [user('u2', 'Now the tests')], previousSummary: previous, fileOps: none });
    expect(section(text, '## Earlier summary')).toBe(
      ['## Earlier summary', 'The summarised part: 3 items (1 user, 1 assistant, 1 tool result).', '', '### Commands run (latest outcome)', '- `make` → ok', 'Use ## for headings.', '', '###### Deep'].join(
        '\n',
      ),
    );
    // The earlier goal is still the goal: it came back through the user messages.
    expect(section(text, '## Goal')).toBe('## Goal (the first request)\n> Write a README with ## Install\n> and a usage part');
  });

  it('an earlier extractive summary without a goal of its own keeps the goal nested in its own earlier summary', () => {
    const previous = [EXTRACTIVE_LABEL, '', 'The summarised part: 1 item (0 user, 1 assistant, 0 tool results).', '', '## Earlier summary', '### Goal', 'Ship it.'].join('\n');
    const text = extractiveSummary({ kind: 'compaction', items: [user('u2', 'go')], previousSummary: previous, fileOps: none });
    expect(section(text, '## Earlier summary')).toBe('## Earlier summary\nThe summarised part: 1 item (0 user, 1 assistant, 0 tool results).\n\n### Earlier summary\n#### Goal\nShip it.');
  });

  it('an earlier model summary is kept whole, trimmed, headings one level down', () => {
    const text = extractiveSummary({ kind: 'compaction', items: [user('u2', 'go')], previousSummary: '\n  \n## Goal\nShip it.\n\n## Progress\nDone.  \n', fileOps: none });
    expect(section(text, '## Earlier summary')).toBe('## Earlier summary\n### Goal\nShip it.\n\n### Progress\nDone.');
  });

  it('a long earlier summary is cut in the middle, and says so', () => {
    const previous = Array.from({ length: 400 }, (_, i) => `Line ${i} of the earlier work.`).join('\n');
    const text = extractiveSummary({ kind: 'compaction', items: [user('u2', 'go')], previousSummary: previous, fileOps: none }, { maxChars: 4000 });
    const earlier = section(text, '## Earlier summary')!;
    expect(earlier).toContain('Line 0 of the earlier work.');
    expect(earlier).toContain('Line 399 of the earlier work.');
    expect(earlier).toMatch(/characters of the earlier summary cut …\]/);
  });

  it('long file lists are cut in the middle within their share (the modified list to 60 %, the read list to 40 % of it), and say so', () => {
    const paths = (p: string) => Array.from({ length: 300 }, (_, i) => `/src/${p}/module${i}.ts`);
    const items = [...paths('m').map((p, i) => call(`m${i}`, `cm${i}`, 'write', { path: p })), ...paths('r').map((p, i) => call(`r${i}`, `cr${i}`, 'read', { path: p }))];
    const max = 6000;
    const text = extractiveSummary({ kind: 'compaction', items, fileOps: none }, { maxChars: max });
    const files = section(text, '## Files touched here')!.split('\n');
    const marker = /\n?\[… [\d,]+ of [\d,]+ characters of the list cut …\]\n?/;
    const modified = files.slice(1).join('\n').split('\nRead: ')[0]!;
    const read = `Read: ${files.slice(1).join('\n').split('\nRead: ')[1]!.replace('\n(Every file touched so far is listed at the end.)', '')}`;
    expect(modified).toMatch(marker);
    expect(read).toMatch(marker);
    expect(modified.startsWith('Modified: `/src/m/module0.ts`')).toBe(true);
    expect(read.startsWith('Read: `/src/r/module0.ts`')).toBe(true);
    // The files section's share is 5 % of the budget, at most five times that when the others leave room.
    const most = Math.floor(max * 0.05 * 5);
    expect(modified.replace(marker, '').length).toBeLessThanOrEqual(Math.floor(most * 0.6));
    expect(read.replace(marker, '').length).toBeLessThanOrEqual(Math.floor(most * 0.4));
  });

  it('too many distinct errors: the newest are listed and the rest counted as left out', () => {
    // Distinct wordings (numbers alone do not make errors distinct).
    const word = (i: number) => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(i / 26)]! + 'abcdefghijklmnopqrstuvwxyz'[i % 26]!;
    const items = Array.from({ length: 120 }, (_, i) => bash(i, `tool${i} --run`, `Error: broke at step ${word(i)}`, true)).flat();
    const text = extractiveSummary({ kind: 'compaction', items, fileOps: none }, { maxChars: 3000 });
    const errors = section(text, '## Errors seen')!.split('\n').slice(1);
    const note = /^- … (\d+) earlier errors left out for space$/.exec(errors[0]!);
    expect(note).not.toBeNull();
    expect(Number(note![1]) + errors.length - 1).toBe(120);
    expect(errors.at(-1)).toBe(`- \`bash\`: Error: broke at step ${word(119)}`);
    const commands = section(text, '## Commands run')!.split('\n').slice(1);
    const cnote = /^- … (\d+) earlier commands left out for space$/.exec(commands[0]!);
    expect(Number(cnote![1]) + commands.length - 1).toBe(120);
  });
});

describe('extractive summary: the budget', () => {
  /** Many short requests fill what the sections leave, so each section keeps its base share. */
  const fillers = (n: number) => Array.from({ length: n }, (_, i) => user(`f${i}`, `ok ${i}\nand some more detail on it`));

  it('the user messages get only what the sections leave: the summary is never cut for space when the sections fit', () => {
    const items = [...fillers(150), ...bash(1, 'npm run build', 'fine'), reply('a2', 'Built.')];
    for (let max = 1500; max <= 2600; max += 3) {
      const text = extractiveSummary({ kind: 'compaction', items, fileOps: none }, { maxChars: max });
      expect(text.length, `maxChars ${max}`).toBeLessThanOrEqual(max);
      expect(text, `maxChars ${max}`).not.toContain('cut for space');
    }
  });

  it('with every section at its base share, a list holds exactly what fits its share (one character per line break)', () => {
    const max = 2000;
    const share = Math.floor(max * 0.1);
    // Two command lines whose sizes (each with its line break) add up to the share exactly, then one over it.
    const line = (cmd: string) => `- \`${cmd}\` → ok`.length + 1;
    const older = 'a'.repeat(60);
    const fit = (extra: number) => {
      const newer = 'b'.repeat(share - line(older) - line('') + extra);
      const items = [...fillers(150), ...bash(1, older, 'x'), ...bash(2, newer, 'y')];
      return section(extractiveSummary({ kind: 'compaction', items, fileOps: none }, { maxChars: max }), '## Commands run')!.split('\n').slice(1);
    };
    expect(fit(0)).toEqual([`- \`${older}\` → ok`, `- \`${'b'.repeat(share - line(older) - line(''))}\` → ok`]);
    expect(fit(1)).toEqual(['- … 1 earlier commands left out for space', `- \`${'b'.repeat(share - line(older) - line('') + 1)}\` → ok`]);
  });

  it('a command line longer than the whole share is still listed (the newest one always is)', () => {
    const items = [...fillers(150), ...bash(1, 'c'.repeat(150), 'x'), ...bash(2, 'd'.repeat(155), 'x')];
    const text = extractiveSummary({ kind: 'compaction', items, fileOps: none }, { maxChars: 1500 });
    expect(section(text, '## Commands run')!.split('\n').slice(1)).toEqual(['- … 1 earlier commands left out for space', `- \`${'d'.repeat(155)}\` → ok`]);
  });

  it('next steps share their part of the budget equally between the latest requests and a split turn opener', () => {
    const max = 3000;
    const share = Math.floor(max * 0.1);
    const long = (c: string) => c.repeat(400);
    const quoted = (t: string, each: number) => {
      if (t.length <= each) return `> ${t}`;
      return new RegExp(`^> ${t[0]}{${Math.ceil(each * 0.7)}}$`);
    };
    const items = [...fillers(150), user('u1', long('p')), user('u2', long('q')), user('u3', long('r'))];
    const text = extractiveSummary({ kind: 'compaction', items, turnPrefix: [user('u4', long('s'))], fileOps: none }, { maxChars: max });
    const lines = section(text, NEXT)!.split('\n');
    const each = Math.floor(share / 4);
    // Each quoted request keeps 70 % of its share at its start (the rest at its end, after the marker).
    expect(lines[1]).toMatch(quoted(long('p'), each));
    expect(lines.find((l) => l.startsWith('> s'))).toMatch(quoted(long('s'), each));
  });

  it('a request cut at the base share is shown whole when the budget has room (a larger share fits, though the text gets shorter)', () => {
    // The goal's base share of 2000 characters is 120: at that share the request is cut, and the cut (with its marker) is longer than the request.
    const goal = 'g'.repeat(125);
    const text = extractiveSummary({ kind: 'compaction', items: [user('u1', goal), user('u2', 'next')], fileOps: none }, { maxChars: 2000 });
    expect(text.length).toBeLessThan(2000);
    expect(section(text, '## Goal')).toBe(`## Goal (the first request)\n> ${goal}`);
    expect(section(text, NEXT)).toBe(`${NEXT}\n> ${goal}\n\n> next`);
  });

  it('a budget smaller than the label: the label and the marker, and the summary still ends', () => {
    const text = extractiveSummary({ kind: 'compaction', items: [user('u1', 'hello there, a request')], fileOps: none }, { maxChars: 150 });
    expect(text.startsWith(`${EXTRACTIVE_LABEL}\n\n`)).toBe(true);
    expect(text).toContain('of the extractive summary cut for space');
  });
});
