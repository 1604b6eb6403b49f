import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats/import';
import type { SessionFlows } from '@/lib/flows/app';
import { buildSessionContext } from '@/lib/session/context';
import { SessionTree } from '@/lib/session/tree';
import { claudeCodeWithCompaction } from '@/lib/testing/claudeCodeCompaction';
import { readFixture } from '@/lib/testing/fixtures';
import { buildTimeline, type TimelineItem } from '@/lib/timeline/build';
import { SummaryCard } from './SummaryCard';

type SummaryItem = Extract<TimelineItem, { kind: 'summary' }>;

/** The text of every list item a card renders (what it summarised and kept). */
function listItems(html: string): string[] {
  return [...html.matchAll(/<li data-entry-id="[^"]*">([^<]*)<\/li>/g)].map((m) => m[1]!.replace(/&#x27;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&'));
}

describe('SummaryCard originals', () => {
  it('lists every summarised entry of the real pi session with a readable line: an empty or thinking-only reply never reads "assistant: "', () => {
    const [snap] = importText(readFixture('piV1'), { fileName: 'compact.jsonl' }).sessions;
    const tree = new SessionTree(snap!.entries);
    const items = buildTimeline(tree, buildSessionContext(tree, snap!.meta.leafId)).filter((i): i is SummaryItem => i.kind === 'summary');
    expect(items).toHaveLength(2);
    // Rendering only reads the flows when a button is pressed.
    const session = {} as SessionFlows;
    for (const item of items) {
      const lines = listItems(renderToStaticMarkup(<SummaryCard item={item} session={session} busy={false} onJumpTo={() => {}} pinned={new Set()} />));
      expect(lines.length).toBe(Math.min(100, item.summarized.entries.length) + Math.min(100, item.kept?.entries.length ?? 0));
      for (const line of lines) {
        expect(line).not.toMatch(/^(user|assistant|tool): *$/);
        expect(line.trim()).not.toBe('');
      }
    }
  });
});

describe('SummaryCard: how the summary was made', () => {
  const [snap] = importText(readFixture('piV1'), { fileName: 'compact.jsonl' }).sessions;
  const tree = new SessionTree(snap!.entries);
  const [item] = buildTimeline(tree, buildSessionContext(tree, snap!.meta.leafId)).filter((i): i is SummaryItem => i.kind === 'summary');
  const render = (details: Partial<SummaryItem['effective']['details']>) =>
    renderToStaticMarkup(<SummaryCard item={{ ...item!, effective: { ...item!.effective, details: { ...item!.effective.details, ...details } } }} session={{} as SessionFlows} busy={false} onJumpTo={() => {}} pinned={new Set()} />);

  it('a rejected model summary is labelled so, with why and whose, on the card', () => {
    const html = render({ summarizer: { kind: 'extractive' }, fallback: { model: 'openai:gpt-4o', reason: 'echo', attempts: 2 } });
    expect(html).toContain('<span class="tag">model summary rejected</span>');
    expect(html).toContain('model summary rejected: it repeated the request instead of summarising it (openai:gpt-4o, 2 attempts)');
    expect(render({}).includes('model summary rejected')).toBe(false);
  });

  it('the summary is shown without its footer tags; its files are lists', () => {
    const summary = '## Goal\nShip it.\n\n<modified-files root="/r/app">\nsrc/a.ts\n</modified-files>';
    const html = renderToStaticMarkup(
      <SummaryCard item={{ ...item!, effective: { ...item!.effective, summary, details: { ...item!.effective.details, readFiles: [], modifiedFiles: [] } } }} session={{} as SessionFlows} busy={false} onJumpTo={() => {}} pinned={new Set()} />,
    );
    expect(html).toContain('Ship it.');
    expect(html).not.toMatch(/&lt;\/?(?:read-files|modified-files)/);
    expect(html).toContain('<code>/r/app/src/a.ts</code>');
  });

  it('the self-check pass shows what it did and what it cost', () => {
    const html = render({ selfCheck: { patched: true, usage: { input: 12_345, output: 678 } } });
    expect(html).toMatch(/<dt>Self-check<\/dt><dd data-testid="card-self-check">added what the summary missed · 12,345 in \/ 678 out<\/dd>/);
    expect(render({}).includes('Self-check')).toBe(false);
  });
});

describe('SummaryCard: a summary whose history is not in the session', () => {
  const cardOf = (text: string) => {
    const [snap] = importText(text, { fileName: 'compacted.jsonl' }).sessions;
    const tree = new SessionTree(snap!.entries);
    const [item] = buildTimeline(tree, buildSessionContext(tree, snap!.meta.leafId)).filter((i): i is SummaryItem => i.kind === 'summary');
    return renderToStaticMarkup(<SummaryCard item={item!} session={{} as SessionFlows} busy={false} onJumpTo={() => {}} pinned={new Set()} />);
  };
  const regenerate = (html: string) => /<button type="button" class="btn ghost small-btn"([^>]*)>(?:(?!<\/button>).)*Regenerate<\/button>/.exec(html)![1]!;

  it('says so where it would list what was summarised, and Regenerate is disabled, pointing at why', () => {
    const html = cardOf(claudeCodeWithCompaction('claudeLog', { atStart: true }).text);
    expect(html).toMatch(/<dt>Summarised<\/dt><dd id="history-missing-[^"]+">The history this summary replaced is not in this session, so it cannot be regenerated\.<\/dd>/);
    expect(regenerate(html)).toMatch(/disabled=""/);
    expect(regenerate(html)).toMatch(/aria-describedby="history-missing-/);
  });

  it('an imported compaction with its history lists it and can be regenerated', () => {
    const html = cardOf(claudeCodeWithCompaction('claudeLog').text);
    expect(html).not.toContain('cannot be regenerated');
    expect(html).toMatch(/<dt>Summarised<\/dt><dd>\d+ entries from “user: Hey Claude, I&#x27;d like your help/);
    expect(html).toContain('nothing before it (only what came after)');
    expect(regenerate(html)).not.toMatch(/disabled/);
  });
});
