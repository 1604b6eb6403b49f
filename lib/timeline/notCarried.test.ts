import { describe, expect, it } from 'vitest';
import { probeReport, type ProbeReport } from '@/lib/compaction/probes/report';
import { importText } from '@/lib/formats/import';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { readFixture } from '@/lib/testing/fixtures';
import { buildTimeline } from './build';
import { focusInstructions, healthText, KIND_ORDER, notCarriedOver, TOP_ITEMS } from './notCarried';

/** The report of the first compaction pi wrote in the real pi session. */
function piReport(): ProbeReport {
  const snap = importText(readFixture('piV1'), { fileName: 'pi.jsonl' }).sessions[0]!;
  const tree = new SessionTree(snap.entries);
  const card = buildTimeline(tree, buildSessionContext(tree, snap.meta.leafId)).find((i) => i.kind === 'summary')!;
  if (card.kind !== 'summary') throw new Error('no card');
  const span = card.summarized.entries.flatMap((e) => (e.type === 'message' ? [{ entryId: e.id, message: e.message }] : []));
  return probeReport(span, card.effective.summary);
}

describe('the Not carried over list', () => {
  const report = piReport();
  const everywhere = { canPin: () => true, pinned: new Set<string>() };

  it('shows the top items, most consequential kinds first, grouped by kind; "all" shows every one', () => {
    expect(report.missed.length).toBeGreaterThan(TOP_ITEMS);
    const top = notCarriedOver(report, everywhere);
    expect(top.shown).toBe(TOP_ITEMS);
    expect(top.total).toBe(report.missed.length);
    const kinds = top.groups.map((g) => g.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect([...kinds].sort((a, b) => KIND_ORDER.indexOf(a) - KIND_ORDER.indexOf(b))).toEqual(kinds);
    // The top is the head of the ranked list: no item of a later kind before an earlier kind is exhausted.
    const ranked = [...report.missed].sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
    expect(top.groups.flatMap((g) => g.items.map((i) => i.label))).toEqual(ranked.slice(0, TOP_ITEMS).map((m) => m.label));
    const all = notCarriedOver(report, { ...everywhere, all: true });
    expect(all.shown).toBe(report.missed.length);
    expect(all.groups.reduce((n, g) => n + g.items.length, 0)).toBe(report.missed.length);
  });

  it('offers a pin only where the message can be pinned here, and shows one already pinned as such', () => {
    const withId = report.missed.find((m) => m.entryId !== undefined)!;
    const state = (opts: Parameters<typeof notCarriedOver>[1]) =>
      notCarriedOver(report, { ...opts, all: true })
        .groups.flatMap((g) => g.items)
        .find((i) => i.entryId === withId.entryId)!.pin;
    expect(state(everywhere)).toBe('pin');
    expect(state({ canPin: () => false, pinned: new Set() })).toBe('none');
    expect(state({ canPin: () => true, pinned: new Set([withId.entryId!]) })).toBe('pinned');
    const noMessage = notCarriedOver(report, { ...everywhere, all: true }).groups.flatMap((g) => g.items).filter((i) => i.entryId === undefined);
    for (const i of noMessage) expect(i.pin).toBe('none');
  });

  it('says the health figure in words, and nothing when there was nothing to check', () => {
    expect(healthText(report)).toMatch(/^Carries \d{1,3} % of what the span had$/);
    expect(healthText({ ...report, health: 0.784 })).toBe('Carries 78 % of what the span had');
    expect(healthText({ health: null, answered: 0, total: 0, missed: [] })).toBeNull();
  });

  it('asks a re-summary to keep the item by its exact words', () => {
    expect(focusInstructions({ kind: 'fileModified', label: 'src/core/sdk.ts' })).toBe('Keep this modified file in the summary, naming it exactly as written: “src/core/sdk.ts”.');
  });
});
