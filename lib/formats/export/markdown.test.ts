import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { buildSessionContext } from '@/lib/session/context';
import { readPi } from '../readers/pi';
import { readChatGpt } from '../readers/chatgpt';
import { allParts, sampleSnapshot } from '@/lib/testing/formatChecks';
import { exportMarkdown, fence } from './markdown';

describe('exportMarkdown', () => {
  it('renders the active path with role headings, tool calls/results and marked summaries', () => {
    const s = sampleSnapshot();
    const md = exportMarkdown(s);
    expect(md.startsWith('# Sample\n')).toBe(true);
    expect(md).toContain('### User\n\nHello');
    expect(md).toContain('### Assistant · openai:gpt-4o');
    expect(md).toContain('**Tool call** `read` (call-1)');
    expect(md).toContain('"path": "a.ts"');
    expect(md).not.toContain('### Tool result');
    expect(md).toContain('> **Thinking**');
    expect(md).toContain('*[image: image/png, 70 B]*');
    // The sample's leaf is on the branch with the branch summary, not on the compaction branch.
    expect(md).toContain('> **Branch summary**');
    expect(md).not.toContain('**Compaction summary**');
    expect(md).toContain('Reply ended with an error: rate limited');
  });

  it('renders a compaction with its token count', () => {
    const s = sampleSnapshot();
    const md = exportMarkdown({ ...s, meta: { ...s.meta, leafId: 'a2' } });
    expect(md).toMatch(/> \*\*Compaction summary\*\* \(5,000 tokens before, 800 after\)\n>\n> \*summarizer: [^*]+\*\n>\n> ## Goal\n> Read a\.ts/);
    expect(md).toContain('Done, **a** is 1.');
    expect(md).toContain('### Tool result · read\n\n```\nconst a = 1;\n```');
  });

  it('renders every branch with branch headings when asked', () => {
    const s = sampleSnapshot();
    const md = exportMarkdown(s, { allBranches: true });
    expect(md).toContain('## All branches');
    expect(md).toMatch(/### Branch 1 \(1 of 2\)\n/);
    expect(md).toMatch(/### Branch 2 \(2 of 2\) \(active\)/);
    expect(md).toContain('**Compaction summary**');
    expect(md).toContain('Done, **a** is 1.');
  });

  it('pi fixture: contains both compaction summaries and every message text on the path', () => {
    const s = readPi(readFixture('piV1')).sessions[0]!;
    const md = exportMarkdown(s);
    expect(md.match(/> \*\*Compaction summary\*\* \(184,525 tokens before\)/g)).toHaveLength(1);
    expect(md.match(/> \*\*Compaction summary\*\* \(131,140 tokens before\)/g)).toHaveLength(1);
    const path = buildSessionContext(s.entries, s.meta.leafId).path;
    for (const e of path) {
      if (e.type !== 'message') continue;
      for (const p of e.message.content) if (p.type === 'text' && p.text.trim()) expect(md).toContain(p.text);
    }
  });

  it('ChatGPT tree: the active path only by default, all messages with allBranches', () => {
    const s = readChatGpt(readFixture('chatgptTree')).sessions[0]!;
    const texts = allParts(s).flatMap((p) => (p.type === 'text' ? [p.text] : []));
    const all = exportMarkdown(s, { allBranches: true });
    for (const t of texts) expect(all).toContain(t);
    const active = exportMarkdown(s);
    const offPath = s.entries.filter((e) => !buildSessionContext(s.entries, s.meta.leafId).path.includes(e));
    const offTexts = allParts({ meta: s.meta, entries: offPath }).flatMap((p) => (p.type === 'text' ? [p.text] : []));
    expect(offTexts.filter((t) => !active.includes(t)).length).toBeGreaterThan(0);
  });

  it('fences code so content cannot close the fence', () => {
    expect(fence('a ``` b')).toBe('````\na ``` b\n````');
  });
});
