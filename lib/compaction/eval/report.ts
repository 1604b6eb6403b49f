import { formatCount } from '@/lib/format/numbers';
import { PROBE_KINDS, type ProbeKind } from '../probes/probes';
import { addCoverage, emptyCoverage, type Coverage, type CoverageByKind } from '../probes/score';
import type { Comparison, Scored } from './agentCompare';
import type { EvalRow } from './run';

/** `npm run eval`'s tables: plain text, one line per summary, and the notes that say how to read them. */

const SHORT: Record<ProbeKind, string> = {
  request: 'requests',
  lastTask: 'last task',
  fileModified: 'modified',
  fileRead: 'read',
  identifier: 'names ≥2×',
  assistantIdentifier: 'asst names',
  decision: 'decisions',
  error: 'errors',
  currentWork: 'at the cut',
  task: 'tasks',
};

function pct(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}

function cov(c: Coverage): string {
  return c.total === 0 ? '—' : `${Math.round((c.hit / c.total) * 100)}% ${c.hit}/${c.total}`;
}

function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: readonly string[]) => row.map((c, i) => c.padEnd(widths[i]!)).join(' | ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)];
}

// ---------------------------------------------------------------- one compaction per fixture

const FIXTURE_HEAD = ['fixture', 'mode', 'part', 'span', 'summary', 'compression', 'after / window', ...PROBE_KINDS.map((k) => SHORT[k]), 'appended', 'model Q&A (compacted / full)'];

export function formatReport(rows: readonly EvalRow[]): string {
  const body: string[][] = [];
  for (const r of rows) {
    if (r.skipped) {
      body.push([r.fixture, r.mode, '', '—', '—', '—', `${formatCount(r.contextBefore)} / ${formatCount(r.window)}`, ...PROBE_KINDS.map(() => '—'), r.skipped, '']);
      continue;
    }
    const qa = r.qa ? `${r.qa.compacted} / ${r.qa.full ?? 'n/a'}${r.qa.ratio !== null ? ` = ${r.qa.ratio.toFixed(2)}` : ''}${r.qa.note ? ` (${r.qa.note})` : ''}` : '';
    const mode = r.mode + (r.fallback ? ` (fallback: ${r.fallback})` : '');
    body.push([
      r.fixture,
      mode,
      'whole',
      formatCount(r.spanTokens),
      formatCount(r.summaryTokens),
      pct(r.compression),
      `${formatCount(r.contextAfter)} / ${formatCount(r.window)}`,
      ...PROBE_KINDS.map((k) => cov(r.coverage[k])),
      r.appended ? 'yes' : r.grew ? 'no (would grow)' : 'no',
      qa,
    ]);
    body.push(['', '', 'body', '', '', '', '', ...PROBE_KINDS.map((k) => cov(r.bodyCoverage[k])), '', '']);
  }
  const grew = rows.filter((r) => r.appended && r.contextAfter >= r.contextBefore).length;
  return [
    ...table(FIXTURE_HEAD, body),
    '',
    `Appended compactions that grow the context: ${grew}.`,
    'span: tokens the summary replaces; compression: 1 − summary / span; after: kept + summary tokens (the context before when not appended).',
    'whole: the summary as stored; body: without the user-messages section and the file lists the app appends to every summary.',
  ].join('\n');
}

// ---------------------------------------------------------------- beside the agents' own summaries

function scoredRow(label: string, who: string, s: Scored, part: 'whole' | 'body', theirsChars: number | null): string[] {
  const chars = part === 'whole' ? s.chars : s.bodyChars;
  const ratio = theirsChars ? ` (${(chars / theirsChars).toFixed(2)}×)` : '';
  const c = part === 'whole' ? s.whole : s.body;
  return [label, `${who} ${part}`, `${formatCount(chars)}${ratio}`, part === 'whole' ? formatCount(s.tokens) : '', ...PROBE_KINDS.map((k) => cov(c[k]))];
}

export interface Pooled {
  theirs: CoverageByKind;
  oursWhole: CoverageByKind;
  oursBody: CoverageByKind;
  modelWhole: CoverageByKind | null;
  modelBody: CoverageByKind | null;
  headingsOnly: CoverageByKind;
  theirsChars: number;
  oursChars: number;
  modelChars: number;
  /** The largest ours / theirs size ratio of any one compaction. */
  worstSizeRatio: number;
  compared: number;
}

export function pool(comparisons: readonly Comparison[]): Pooled {
  const p: Pooled = {
    theirs: emptyCoverage(),
    oursWhole: emptyCoverage(),
    oursBody: emptyCoverage(),
    modelWhole: null,
    modelBody: null,
    headingsOnly: emptyCoverage(),
    theirsChars: 0,
    oursChars: 0,
    modelChars: 0,
    worstSizeRatio: 0,
    compared: 0,
  };
  for (const c of comparisons) {
    if (!c.theirs || !c.ours) continue;
    p.compared++;
    p.theirs = addCoverage(p.theirs, c.theirs.whole);
    p.oursWhole = addCoverage(p.oursWhole, c.ours.whole);
    p.oursBody = addCoverage(p.oursBody, c.ours.body);
    if (c.headingsOnly) p.headingsOnly = addCoverage(p.headingsOnly, c.headingsOnly);
    p.theirsChars += c.theirs.chars;
    p.oursChars += c.ours.chars;
    p.worstSizeRatio = Math.max(p.worstSizeRatio, c.ours.chars / Math.max(1, c.theirs.chars));
    if (c.model) {
      p.modelWhole = addCoverage(p.modelWhole ?? emptyCoverage(), c.model.whole);
      p.modelBody = addCoverage(p.modelBody ?? emptyCoverage(), c.model.body);
      p.modelChars += c.model.chars;
    }
  }
  return p;
}

const COMPARE_HEAD = ['compaction', 'summary', 'chars (× theirs)', 'tokens', ...PROBE_KINDS.map((k) => SHORT[k])];

export function formatComparison(comparisons: readonly Comparison[]): string {
  const rows: string[][] = [];
  for (const c of comparisons) {
    const label = `${c.fixture} #${c.ordinal} (${c.agent})`;
    if (!c.theirs || !c.ours) {
      rows.push([label, c.skipped ?? 'skipped', '', '', ...PROBE_KINDS.map(() => '')]);
      continue;
    }
    const span = `span ${formatCount(c.spanTokens)} tokens, ${c.probes.length} probes`;
    rows.push([label, span, '', '', ...PROBE_KINDS.map(() => '')]);
    rows.push(scoredRow('', 'theirs', c.theirs, 'whole', null));
    rows.push(scoredRow('', 'ours', c.ours, 'whole', c.theirs.chars));
    rows.push(scoredRow('', 'ours', c.ours, 'body', c.theirs.chars));
    if (c.model) {
      rows.push(scoredRow('', c.model.name + (c.model.fallback ? ` (fallback ${c.model.fallback})` : ''), c.model, 'whole', c.theirs.chars));
      rows.push(scoredRow('', c.model.name, c.model, 'body', c.theirs.chars));
    }
  }
  const p = pool(comparisons);
  const pooledRows: string[][] = [
    ['agents’ own', formatCount(p.theirsChars), ...PROBE_KINDS.map((k) => cov(p.theirs[k]))],
    ['ours (extractive), whole', `${formatCount(p.oursChars)} (${(p.oursChars / Math.max(1, p.theirsChars)).toFixed(2)}×; worst ${p.worstSizeRatio.toFixed(2)}×)`, ...PROBE_KINDS.map((k) => cov(p.oursWhole[k]))],
    ['ours (extractive), body', '', ...PROBE_KINDS.map((k) => cov(p.oursBody[k]))],
  ];
  if (p.modelWhole && p.modelBody) {
    pooledRows.push(['model, whole', `${formatCount(p.modelChars)} (${(p.modelChars / Math.max(1, p.theirsChars)).toFixed(2)}×)`, ...PROBE_KINDS.map((k) => cov(p.modelWhole![k]))]);
    pooledRows.push(['model, body', '', ...PROBE_KINDS.map((k) => cov(p.modelBody![k]))]);
  }
  pooledRows.push(['headings only (a trivial summary)', '', ...PROBE_KINDS.map((k) => cov(p.headingsOnly[k]))]);
  const behind = PROBE_KINDS.filter((k) => p.theirs[k].total > 0 && p.oursWhole[k].hit / p.oursWhole[k].total < p.theirs[k].hit / p.theirs[k].total);
  return [
    `Agents' own compactions beside ours on the same spans (${p.compared} compared):`,
    ...table(COMPARE_HEAD, rows),
    '',
    'Pooled over every compaction compared:',
    ...table(['summaries', 'chars', ...PROBE_KINDS.map((k) => SHORT[k])], pooledRows),
    '',
    behind.length ? `Probe kinds where ours (whole) is below the agents': ${behind.map((k) => SHORT[k]).join(', ')}.` : "Ours (whole) is at or above the agents' own on every probe kind.",
    'Probes come from the span (lib/compaction/probes): requests by the start of their first line verbatim; last task and decisions, errors and tasks by their key terms (most of them);',
    'files by their last two path segments (relative and absolute spellings answer alike); names (code-shaped words: functions, classes, config keys, paths, commands in backticks, URLs) as whole words.',
  ].join('\n');
}
