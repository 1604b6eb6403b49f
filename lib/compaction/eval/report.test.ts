import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { countText, entryTokens, loadSessions } from '@/lib/testing/compactionData';
import { PROBE_KINDS } from './probes';
import { formatReport } from './report';
import { evaluateSubject, type EvalRow } from './run';

/**
 * The table `npm run eval` prints, read back as a reader would: every column
 * lines up under its heading, each cell says what its row measured, and the
 * notes under the table count what they claim to count.
 */

const HEADINGS = ['fixture', 'mode', 'span', 'summary', 'compression', 'after / window', ...PROBE_KINDS, 'all probes', 'appended', 'model Q&A (compacted / full)'];

/** A real row: the pi session's longest path compacted by the extractive summarizer. */
async function piRow(): Promise<EvalRow> {
  const path = loadSessions('piV1')
    .map((s) => s.path.filter((e: SessionEntry) => e.type === 'message'))
    .sort((a, b) => b.length - a.length)[0]!;
  const [row] = await evaluateSubject({ name: 'piV1', path }, { countText, tokensOf: entryTokens, window: 128_000 });
  return row!;
}

/**
 * A row as the eval makes them, written out: the formatting tests below vary one field at a time and
 * need no compaction run (which would also make every mutant of the compaction code run them).
 */
function baseRow(): EvalRow {
  const coverage = Object.fromEntries(PROBE_KINDS.map((k, i) => [k, { hit: i, total: i + 1 }])) as EvalRow['coverage'];
  return {
    fixture: 'piV1',
    mode: 'extractive',
    skipped: null,
    spanTokens: 52_310,
    summaryTokens: 2_004,
    compression: 0.9617,
    contextBefore: 70_000,
    contextAfter: 19_694,
    window: 128_000,
    appended: true,
    grew: false,
    fallback: null,
    coverage,
  };
}

/** Splits the table into its lines' cells, checking that every line puts its separators at the heading line's positions. */
function cells(report: string, rows: number): string[][] {
  const lines = report.split('\n');
  const head = lines[0]!;
  const bars = [...head.matchAll(/ \| /g)].map((m) => m.index);
  expect(bars).toHaveLength(HEADINGS.length - 1);
  // The rule under the headings: one run of dashes per column, as wide as the column, joined at the same places.
  expect(lines[1]).toMatch(/^-+(-\|-+)+$/);
  expect([...lines[1]!.matchAll(/-\|-/g)].map((m) => m.index)).toEqual(bars);
  const body = lines.slice(2, 2 + rows);
  for (const l of body) {
    // An empty last cell is trimmed away with its padding, leaving the bar without its trailing space.
    for (const at of bars) expect(l.slice(at, at + 3), l).toBe(at === bars.at(-1) && l.length === at + 2 ? ' |' : ' | ');
    expect(l, 'no trailing spaces').toBe(l.trimEnd());
  }
  return [head, ...body].map((l) => (l.endsWith(' |') ? `${l} ` : l).split(' | ').map((c) => c.trim()));
}

describe('formatReport', () => {
  it('a real row: headings in order, each cell under its own heading, figures as the row holds them', async () => {
    const row = await piRow();
    const report = formatReport([row]);
    const [head, cellsOf] = cells(report, 1);
    expect(head).toEqual(HEADINGS);
    const at = (h: string) => cellsOf![HEADINGS.indexOf(h)]!;
    expect(at('fixture')).toBe('piV1');
    expect(at('mode')).toBe('extractive');
    expect(at('span')).toBe(row.spanTokens.toLocaleString('en-US'));
    expect(at('summary')).toBe(row.summaryTokens.toLocaleString('en-US'));
    expect(at('compression')).toBe(`${(Math.round(row.compression * 1000) / 10).toFixed(1)}%`);
    expect(at('after / window')).toBe(`${row.contextAfter.toLocaleString('en-US')} / ${row.window.toLocaleString('en-US')}`);
    for (const k of PROBE_KINDS) {
      const c = row.coverage[k];
      expect(at(k), k).toBe(c.total === 0 ? '—' : `${Math.round((100 * c.hit) / c.total)}% ${c.hit}/${c.total}`);
    }
    const hit = PROBE_KINDS.reduce((a, k) => a + row.coverage[k].hit, 0);
    const total = PROBE_KINDS.reduce((a, k) => a + row.coverage[k].total, 0);
    expect(at('all probes')).toBe(`${Math.round((100 * hit) / total)}% ${hit}/${total}`);
    expect(at('appended')).toBe('yes');
    expect(at('model Q&A (compacted / full)')).toBe('');
  });

  it('coverage: none asked is a dash, a part is a rounded percentage with its counts', () => {
    const row = baseRow();
    const none = { ...row, coverage: { ...row.coverage, artifact: { hit: 0, total: 0 }, recall: { hit: 2, total: 3 }, decision: { hit: 1, total: 8 } } };
    const [, c] = cells(formatReport([none]), 1);
    expect(c![HEADINGS.indexOf('artifact')]).toBe('—');
    expect(c![HEADINGS.indexOf('recall')]).toBe('67% 2/3');
    expect(c![HEADINGS.indexOf('decision')]).toBe('13% 1/8');
  });

  it('compression with one decimal; the fallback named after the mode; appended, refused as growing, or not appended', () => {
    const row = baseRow();
    const rows: EvalRow[] = [
      { ...row, fixture: 'a', compression: 0.98765, fallback: null, appended: true, grew: false },
      { ...row, fixture: 'b', compression: 0.5, mode: 'mock:model', fallback: 'larger', appended: false, grew: true },
      { ...row, fixture: 'c', compression: 0.04, appended: false, grew: false },
    ];
    const [, a, b, c] = cells(formatReport(rows), 3);
    const col = (r: string[] | undefined, h: string) => r![HEADINGS.indexOf(h)];
    expect(col(a, 'compression')).toBe('98.8%');
    expect(col(b, 'compression')).toBe('50.0%');
    expect(col(c, 'compression')).toBe('4.0%');
    expect(col(a, 'mode')).toBe('extractive');
    expect(col(b, 'mode')).toBe('mock:model (fallback: larger)');
    expect(col(a, 'appended')).toBe('yes');
    expect(col(b, 'appended')).toBe('no (would grow)');
    expect(col(c, 'appended')).toBe('no');
  });

  it('a skipped row: dashes for what was not measured, the context and window it had, and why', () => {
    const row = baseRow();
    const skipped: EvalRow = { ...row, fixture: 'tiny', skipped: 'nothing to compact', contextBefore: 1234, window: 128_000 };
    const [, c] = cells(formatReport([skipped]), 1);
    expect(c).toEqual(['tiny', row.mode, '—', '—', '—', '1,234 / 128,000', ...PROBE_KINDS.map(() => '—'), '—', 'nothing to compact', '']);
  });

  it('model Q&A: compacted over full with the ratio to two decimals, a note in brackets, "n/a" for no full score', () => {
    const row = baseRow();
    const rows: EvalRow[] = [
      { ...row, fixture: 'q1', qa: { compacted: 7, full: 8, ratio: 0.875 } },
      { ...row, fixture: 'q2', qa: { compacted: 5, full: null, ratio: null, note: 'full context exceeds the model window' } },
    ];
    const [, a, b] = cells(formatReport(rows), 2);
    expect(a!.at(-1)).toBe('7 / 8 = 0.88');
    expect(b!.at(-1)).toBe('5 / n/a (full context exceeds the model window)');
  });

  it('the notes: the count of appended compactions that do not make the context smaller (equal counts), then what the columns mean', () => {
    const row = baseRow();
    const rows: EvalRow[] = [
      { ...row, fixture: 'smaller', appended: true, contextBefore: 100, contextAfter: 99 },
      { ...row, fixture: 'equal', appended: true, contextBefore: 100, contextAfter: 100 },
      { ...row, fixture: 'larger', appended: true, contextBefore: 100, contextAfter: 101 },
      { ...row, fixture: 'not appended', appended: false, contextBefore: 100, contextAfter: 150 },
    ];
    const lines = formatReport(rows).split('\n');
    const notes = lines.slice(2 + rows.length);
    expect(notes[0]).toBe('');
    expect(notes[1]).toBe('Appended compactions that grow the context: 2.');
    expect(notes[2]).toMatch(/^span: tokens the summary replaces; compression: 1 − summary \/ span; after: kept \+ summary tokens/);
    expect(notes[3]).toMatch(/^Probes come from the transcript \(artifact: files modified; recall: each user request;/);
    expect(notes).toHaveLength(4);
  });

  it('columns widen to their longest cell', () => {
    const row = baseRow();
    const long = 'a-fixture-name-much-longer-than-its-heading';
    const report = formatReport([{ ...row, fixture: long }, { ...row, fixture: 'x' }]);
    const lines = report.split('\n');
    expect(lines[0]!.indexOf(' | ')).toBe(long.length);
    expect(lines[1]!.indexOf('-|-')).toBe(long.length);
    expect(lines[3]!.startsWith(`x${' '.repeat(long.length - 1)} | `)).toBe(true);
  });
});
