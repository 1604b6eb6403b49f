import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats/import';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import type { ChatMessage, SessionSnapshot } from '@/lib/session/types';
import { claudeCodeWithCompaction } from '@/lib/testing/claudeCodeCompaction';
import { readFixture } from '@/lib/testing/fixtures';
import { buildTimeline, type TimelineItem } from '@/lib/timeline/build';
import { summaryBody } from '../eval/summaryParts';
import { renderUserMessages, withUserMessages } from '../userMessages';
import { probesFor, type SpanMessage } from './probes';
import { probeReport } from './report';
import { coverage, health, missed } from './score';

type SummaryItem = Extract<TimelineItem, { kind: 'summary' }>;

/** The summary cards of an imported session, with the span each stands for, as the timeline builds them. */
function cards(snapshot: SessionSnapshot): { item: SummaryItem; span: SpanMessage[] }[] {
  const tree = new SessionTree(snapshot.entries);
  return buildTimeline(tree, buildSessionContext(tree, snapshot.meta.leafId))
    .filter((i): i is SummaryItem => i.kind === 'summary')
    .map((item) => ({ item, span: item.summarized.entries.flatMap((e) => (e.type === 'message' ? [{ entryId: e.id, message: e.message }] : [])) }));
}

const imported = (text: string, fileName: string) => importText(text, { fileName }).sessions[0]!;

describe('probeReport on the compactions real agents wrote (pi, Claude Code)', () => {
  const all = [...cards(imported(readFixture('piV1'), 'pi.jsonl')), ...cards(imported(claudeCodeWithCompaction().text, 'cc.jsonl'))];

  it('every imported compaction has a span to check and a health figure; the report agrees with score.ts', () => {
    expect(all.length).toBeGreaterThanOrEqual(3);
    for (const { item, span } of all) {
      const summary = item.effective.summary;
      const report = probeReport(span, summary);
      const probes = probesFor(span);
      expect(report.total).toBe(probes.length);
      expect(report.total).toBeGreaterThan(0);
      expect(report.health).toBe(health(coverage(summary, probes)));
      expect(report.missed.map((m) => m.label)).toEqual(missed(summary, probes).map((p) => p.label));
      expect(report.answered + report.missed.length).toBe(report.total);
    }
  });

  it('what it names to pin is always a message a user can pin (theirs or a reply) within the span', () => {
    for (const { span, item } of all) {
      const byId = new Map(span.map((s) => [s.entryId, s.message]));
      for (const m of probeReport(span, item.effective.summary).missed) {
        if (m.entryId === undefined) continue;
        expect(['user', 'assistant']).toContain(byId.get(m.entryId)?.role);
      }
    }
  });

  it('an empty summary carries nothing: health 0 and every probe listed', () => {
    const { span } = all[0]!;
    const report = probeReport(span, '');
    expect(report.health).toBe(0);
    expect(report.missed).toHaveLength(report.total);
  });
});

describe('what probeReport scores and points at', () => {
  let n = 0;
  const msg = (message: ChatMessage): SpanMessage => ({ entryId: `e${n++}`, message });

  it('an error from a failed tool result is pinned through the assistant message that ran the call', () => {
    const call = msg({ role: 'assistant', content: [{ type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'npm test' } }] });
    const result = msg({ role: 'toolResult', toolCallId: 'c1', toolName: 'bash', content: [{ type: 'text', text: "TypeError: Cannot read properties of undefined (reading 'id')" }], isError: true });
    const report = probeReport([call, result], '## Goal\nFix the tests.');
    const error = report.missed.find((m) => m.kind === 'error');
    expect(error?.entryId).toBe(call.entryId);
  });

  it('the whole stored summary is scored: a request carried only in the user-messages section counts as carried', () => {
    const request = msg({ role: 'user', content: [{ type: 'text', text: 'Please migrate the billing export to the new CSV writer' }] });
    const summary = withUserMessages('## Goal\nWork on exports.', renderUserMessages([{ text: 'Please migrate the billing export to the new CSV writer', full: true }], 2_000));
    expect(probeReport([request], summary).missed.filter((m) => m.kind === 'request')).toEqual([]);
    // The body alone (what the eval scores the summarizer on) does not carry it.
    expect(probeReport([request], summaryBody(summary)).missed.map((m) => m.kind)).toContain('request');
  });
});
