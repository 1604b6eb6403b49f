import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import type { SessionEntry, SessionSnapshot } from '@/lib/session/types';
import { readPi } from '../readers/pi';
import { readClaudeCode } from '../readers/claudeCode';
import { expectInert, sampleSnapshot, startTags } from '@/lib/testing/formatChecks';
import { EXPORT_CSP, exportHtml } from './html';

const HOSTILE = [
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '[x](javascript:alert(1))',
  '<a href="javascript:alert(1)">y</a>',
  '```\n</script><script>alert(1)</script>\n```',
  '<svg onload=alert(1)>',
  '<iframe src="https://evil.example"></iframe>',
  '"><script>alert(1)</script>',
  "'><img src=x onerror=alert(1)>",
].join('\n\n');

function hostileSnapshot(): SessionSnapshot {
  const t = 1_700_000_000_000;
  const entries: SessionEntry[] = [
    { id: 'u"><script>1', parentId: null, timestamp: t, type: 'message', message: { role: 'user', content: [{ type: 'text', text: HOSTILE }, { type: 'image', mimeType: 'image/png" onerror="alert(1)', data: 'AAAA' }, { type: 'image', mimeType: 'image/png', data: 'AA"onerror="alert(1)' }, { type: 'image', mimeType: 'image/png', url: 'javascript:alert(1)' }] } },
    {
      id: 'a1',
      parentId: 'u"><script>1',
      timestamp: t + 1,
      type: 'message',
      message: { role: 'assistant', content: [{ type: 'thinking', thinking: HOSTILE }, { type: 'text', text: HOSTILE }, { type: 'toolCall', id: 'c<1>', name: '<script>x</script>', arguments: { cmd: '</script><script>alert(1)</script>' } }], model: '<b>m</b>', stopReason: 'error', errorMessage: '<img src=x onerror=alert(1)>' },
    },
    { id: 'r1', parentId: 'a1', timestamp: t + 2, type: 'message', message: { role: 'toolResult', toolCallId: 'c<1>', toolName: '<img src=x onerror=alert(1)>', content: [{ type: 'text', text: HOSTILE }], isError: true } },
    { id: 'k1', parentId: 'r1', timestamp: t + 3, type: 'compaction', summary: HOSTILE, firstKeptEntryId: 'r1', tokensBefore: 10, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } },
    { id: 'b1', parentId: 'k1', timestamp: t + 4, type: 'branch_summary', fromId: 'x', summary: HOSTILE, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' } } },
    { id: 'x1', parentId: 'b1', timestamp: t + 5, type: 'custom', customType: '<script>alert(1)</script>', display: HOSTILE },
    { id: 'side', parentId: 'u"><script>1', timestamp: t + 6, type: 'message', message: { role: 'user', content: [{ type: 'text', text: HOSTILE }] } },
  ];
  return { meta: { id: 's', title: '</title><script>alert(1)</script>', createdAt: t, updatedAt: t, leafId: 'x1', systemPrompt: HOSTILE }, entries };
}

describe('exportHtml', () => {
  it('is one self-contained document with a strict CSP and no external resources', () => {
    const html = exportHtml(sampleSnapshot());
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`);
    expect(EXPORT_CSP).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:");
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/@import|url\(/i);
    for (const t of startTags(html)) expect(t).not.toMatch(/\ssrc="(?!data:image\/)/);
  });

  it('has a tree of the whole session with the active path marked, and the active path in the main column', () => {
    const s = sampleSnapshot();
    const html = exportHtml(s);
    const nav = html.slice(html.indexOf('<nav'), html.indexOf('</nav>'));
    expect(nav.match(/<li[ >]/g)!.length - nav.match(/<li class="fork">/g)!.length).toBe(s.entries.length);
    expect(nav.match(/class="fork"/g)).toHaveLength(2);
    expect(nav).toMatch(/<li class="active leaf" aria-current="true">/);
    const main = html.slice(html.indexOf('<main>'));
    expect(main).toContain('Hello');
    expect(main).toContain('<details class="summary branch" open><summary>Branch summary');
    expect(main).not.toContain('Done, <strong>a</strong> is 1.');
    expect(main).toContain('<img class="part"');
  });

  it('shows compaction summaries in a details block with the token count, messages rendered as markdown', () => {
    const s = sampleSnapshot();
    const html = exportHtml({ ...s, meta: { ...s.meta, leafId: 'a2' } });
    expect(html).toMatch(/<details class="summary compaction" open><summary>Compaction summary \(5,000 tokens before, 800 after\)<\/summary><p class="meta">summarizer: [^<]+<\/p><div class="md"><h2>Goal<\/h2>/);
    expect(html).toContain('Done, <strong>a</strong> is 1.');
    expect(html).toContain('<pre>const a = 1;</pre>');
  });

  it('renders hostile content inert: no script, no handlers, no javascript: URLs', () => {
    const html = exportHtml(hostileSnapshot());
    const body = html.slice(html.indexOf('<body>'));
    expectInert(body);
    expectInert(html.slice(0, html.indexOf('<body>')), { allowStyleElement: true });
    expect(html.match(/<style>/g)).toHaveLength(1);
    expect(html.match(/<meta/g)).toHaveLength(4);
    // The hostile text is still there, as text.
    expect(html).toContain('&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).toMatch(/&(lt|#x3C);script>alert\(1\)&(lt|#x3C);\/script>/);
    expect(body).toContain('&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).not.toContain('<img src=x');
    // Only the validated image became an <img>; the injected mime type and data did not.
    expect(startTags(body).filter((t) => t.startsWith('<img'))).toHaveLength(0);
  });

  it('exports the real transcripts (pi with compactions, Claude Code with a 1 MB screenshot)', () => {
    const pi = readPi(readFixture('piV1')).sessions[0]!;
    const html = exportHtml(pi);
    expect(html.match(/<details class="summary compaction"/g)).toHaveLength(2);
    expect(html).toContain('Compaction summary (184,525 tokens before)');
    expect(html).toContain('Compaction summary (131,140 tokens before)');
    expectInert(html.slice(html.indexOf('<body>')));
    const claude = readClaudeCode(readFixture('claudeLog')).sessions[0]!;
    const h2 = exportHtml(claude);
    expect(h2.match(/<img class="part" alt="image: image\/png[^"]*" src="data:image\/png;base64,iVBOR/g)).toHaveLength(1);
    expectInert(h2.slice(h2.indexOf('<body>')));
  });
});

describe('exportHtml: summary records', () => {
  it('shows the current version of a revised summary with its facts, and marks undone ones', () => {
    const t = 1_700_000_000_000;
    const entries: SessionEntry[] = [
      { id: 'u1', parentId: null, timestamp: t, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'q1' }] } },
      { id: 'u2', parentId: 'u1', timestamp: t + 1, type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'q2' }] } },
      { id: 'c1', parentId: 'u2', timestamp: t + 2, type: 'compaction', summary: 'Original text', firstKeptEntryId: 'u2', tokensBefore: 900, tokensAfter: 100, details: { readFiles: ['/src/a.ts'], modifiedFiles: ['/src/b.ts'], summarizer: { kind: 'model', model: 'openai:gpt-4o' }, durationMs: 2500 } },
      { id: 'r1', parentId: 'c1', timestamp: t + 3, type: 'summary_revision', targetId: 'c1', action: 'edit', summary: 'Edited text' },
      { id: 'r2', parentId: 'r1', timestamp: t + 4, type: 'summary_revision', targetId: 'c1', action: 'undo' },
    ];
    const html = exportHtml({ meta: { id: 's', title: 'Revised', createdAt: t, updatedAt: t, leafId: 'r2' }, entries });
    const main = html.slice(html.indexOf('<main>'));
    expect(main).toContain('Compaction summary (900 tokens before, 100 after) — undone');
    expect(main).toContain('summarizer: openai:gpt-4o · 2.5 s · read: /src/a.ts · modified: /src/b.ts · version 2 (edited) · undone: not in the context');
    expect(main).toContain('<p>Edited text</p>');
  });
});

describe('exportHtml: what a reader sees', () => {
  /** A real pi session with its compactions, plus an undone summary and a label, as the app would append them. */
  function realSession(): SessionSnapshot {
    const s = readPi(readFixture('piV1')).sessions[0]!;
    const compaction = s.entries.find((e) => e.type === 'compaction')!;
    const t = s.entries.at(-1)!.timestamp + 1;
    const entries: SessionEntry[] = [
      ...s.entries,
      { id: 'nKLyuV504YrD', parentId: s.meta.leafId, timestamp: t, type: 'summary_revision', targetId: compaction.id, action: 'undo' },
      { id: 'Qx7LabelEntry', parentId: 'nKLyuV504YrD', timestamp: t + 1, type: 'label', targetId: compaction.id, label: 'before the refactor' },
    ];
    return { meta: { ...s.meta, leafId: 'Qx7LabelEntry' }, entries };
  }

  /** The document's text as a browser shows it: tags and their attributes removed, entities decoded. */
  const visibleText = (html: string) =>
    html
      .slice(Math.max(0, html.indexOf('<body')))
      .replace(/<[^>]+>/g, ' ')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');

  it('shows no internal id in the text (summaries, revisions and labels name what they act on in words); the tree links by anchors', () => {
    const s = realSession();
    const html = exportHtml(s);
    const text = visibleText(html);
    const bookkeeping = s.entries.filter((e) => e.type !== 'message');
    expect(bookkeeping.length).toBeGreaterThanOrEqual(3);
    for (const e of bookkeeping) expect(text, `entry id ${e.id}`).not.toContain(e.id);
    const nav = html.slice(html.indexOf('<nav'), html.indexOf('</nav>'));
    for (const [, href] of nav.matchAll(/href="([^"]*)"/g)) expect(href).toMatch(/^#e\d+$/);
    expect(text).toContain('Summary undone');
  });

  it('renders summaries instead of printing their markdown, in the tree as well as the main column', () => {
    const s = realSession();
    const html = exportHtml(s);
    const compactions = s.entries.filter((e) => e.type === 'compaction');
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions.every((c) => c.type === 'compaction' && /^##\s/m.test(c.summary))).toBe(true);
    // The summaries' own sections (tool output elsewhere may quote markdown, and should).
    const sections = [...html.matchAll(/<details class="summary compaction"[\s\S]*?<\/details><\/div>/g)].map((m) => m[0]);
    expect(sections.length).toBe(compactions.length);
    const text = sections.map(visibleText).join('\n');
    // Every heading line of every summary is rendered as a heading, never printed as "## Goal".
    const headingLines = new Set(compactions.flatMap((c) => (c.type === 'compaction' ? c.summary.split('\n').filter((l) => /^#{1,6}\s/.test(l)) : [])));
    expect(headingLines.size).toBeGreaterThan(2);
    for (const line of headingLines) expect(text, line).not.toContain(line.trim());
    const headingTags = sections.join('').match(/<h[1-6]>/g) ?? [];
    expect(headingTags.length).toBeGreaterThanOrEqual(headingLines.size);
    const nav = visibleText(html.slice(html.indexOf('<nav'), html.indexOf('</nav>')));
    expect(nav).toMatch(/Compaction\s+[\d,]+( → [\d,]+)? tokens/);
  });
});
