import { describe, expect, it } from 'vitest';
import { readFixture } from '@/lib/testing/fixtures';
import { buildSessionContext } from '@/lib/session/context';
import { readPi } from '../readers/pi';
import { readChatGpt } from '../readers/chatgpt';
import { importText } from '../import';
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
    expect(md).toContain('*\\[image: image/png, 70 B\\]*');
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

describe('exportMarkdown with front matter (Obsidian)', () => {
  /** The front matter as key → value: each line `key: value` where a value is a JSON string, a number, a timestamp or a list. */
  function properties(md: string): Record<string, unknown> {
    const m = /^---\n([\s\S]*?)\n---\n/.exec(md);
    if (!m) throw new Error('no front matter');
    const out: Record<string, unknown> = {};
    let list: unknown[] | null = null;
    for (const line of m[1]!.split('\n')) {
      const item = /^ {2}- (.*)$/.exec(line);
      if (item && list) {
        list.push(item[1]!.startsWith('"') ? JSON.parse(item[1]!) : item[1]);
        continue;
      }
      const kv = /^([a-z_]+):(?: (.*))?$/.exec(line);
      if (!kv) throw new Error(`not a YAML property line: ${line}`);
      if (kv[2] === undefined) out[kv[1]!] = list = [];
      else out[kv[1]!] = kv[2].startsWith('"') ? JSON.parse(kv[2]) : /^\d+$/.test(kv[2]) ? Number(kv[2]) : kv[2];
    }
    return out;
  }

  it('opens with title, dates, model and source as properties, then the conversation', () => {
    const [s] = readChatGpt(readFixture('chatgptTree'), { fileName: 'conversations.json' }).sessions;
    const md = exportMarkdown(s!, { frontMatter: true });
    expect(properties(md)).toEqual({
      title: s!.meta.title,
      created: new Date(s!.meta.createdAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      updated: new Date(s!.meta.updatedAt).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      model: s!.meta.model,
      source: 'chatgpt',
      source_file: 'conversations.json',
      entries: s!.entries.length,
      tags: ['longctx', 'chatgpt'],
    });
    const body = md.replace(/^---\n[\s\S]*?\n---\n\n/, '');
    expect(body.startsWith(`# ${s!.meta.title}\n\n`)).toBe(true);
    expect(body).toBe(exportMarkdown(s!).replace(/^# .*\n\n\*[^\n]*\*\n/, `# ${s!.meta.title}\n`));
  });

  it('quotes any title safely and leaves out the dates of an undated file', () => {
    const [s] = importText(readFixture('sweTraj'), { fileName: 'pydicom.traj' }).sessions;
    const tricky = { ...s!, meta: { ...s!.meta, title: 'Fix: "quotes", colons: and # hashes\nnew line' } };
    const props = properties(exportMarkdown(tricky, { frontMatter: true }));
    expect(props.title).toBe(tricky.meta.title);
    expect(props.created).toBeUndefined();
    expect(props.source).toBe('swe-agent');
  });
});
