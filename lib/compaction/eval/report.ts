import { formatCount } from '@/lib/format/numbers';
import { PROBE_KINDS, totalCoverage, type Coverage } from './probes';
import type { EvalRow } from './run';

/** The eval's rows as a plain-text table, one line per fixture and mode, and the notes below it. */

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

function cov(c: Coverage): string {
  return c.total === 0 ? '—' : `${Math.round((c.hit / c.total) * 100)}% ${c.hit}/${c.total}`;
}

const HEAD = ['fixture', 'mode', 'span', 'summary', 'compression', 'after / window', ...PROBE_KINDS, 'all probes', 'appended', 'model Q&A (compacted / full)'];

export function formatReport(rows: readonly EvalRow[]): string {
  const table = rows.map((r) => {
    if (r.skipped) return [r.fixture, r.mode, '—', '—', '—', `${formatCount(r.contextBefore)} / ${formatCount(r.window)}`, ...PROBE_KINDS.map(() => '—'), '—', r.skipped, ''];
    const qa = r.qa ? `${r.qa.compacted} / ${r.qa.full ?? 'n/a'}${r.qa.ratio !== null ? ` = ${r.qa.ratio.toFixed(2)}` : ''}${r.qa.note ? ` (${r.qa.note})` : ''}` : '';
    return [
      r.fixture,
      r.mode + (r.fallback ? ` (fallback: ${r.fallback})` : ''),
      formatCount(r.spanTokens),
      formatCount(r.summaryTokens),
      pct(r.compression),
      `${formatCount(r.contextAfter)} / ${formatCount(r.window)}`,
      ...PROBE_KINDS.map((k) => cov(r.coverage[k])),
      cov(totalCoverage(r.coverage)),
      r.appended ? 'yes' : r.grew ? 'no (would grow)' : 'no',
      qa,
    ];
  });
  const all = [HEAD, ...table];
  const widths = HEAD.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) => row.map((c, i) => c.padEnd(widths[i]!)).join(' | ').trimEnd();
  const grew = rows.filter((r) => r.appended && r.contextAfter >= r.contextBefore).length;
  return [
    line(HEAD),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...table.map(line),
    '',
    `Appended compactions that grow the context: ${grew}.`,
    'span: tokens the summary replaces; compression: 1 − summary / span; after: kept + summary tokens (the context before when not appended).',
    'Probes come from the transcript (artifact: files modified; recall: each user request; constraint: user lines with must/never/only…; continuation: the last request; decision: backticked names in decision sentences), answered by normalised match.',
  ].join('\n');
}
