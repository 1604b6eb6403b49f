import { describe, expect, it } from 'vitest';
import { expectInert } from '@/lib/testing/formatChecks';
import { renderMarkdownToHtml } from './render';

describe('expectInert (the check the export tests rely on)', () => {
  it('catches what it is meant to catch', () => {
    expect(() => expectInert('<img src=x onerror=alert(1)>')).toThrow();
    expect(() => expectInert('<a href="javascript:alert(1)">x</a>')).toThrow();
    expect(() => expectInert('<a href=" JaVaScRiPt:alert(1)">x</a>')).toThrow();
    expect(() => expectInert('<p>ok</p><script>alert(1)</script>')).toThrow();
    expect(() => expectInert('<div style="x">a</div>')).toThrow();
    expect(() => expectInert('<p title="a onclick=b > c">&lt;img onerror=alert(1)&gt;</p>')).not.toThrow();
  });
});

describe('renderMarkdownToHtml', () => {
  it('renders GFM', () => {
    const html = renderMarkdownToHtml('# Title\n\n**bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\n~~gone~~\n\n```ts\nconst x = 1;\n```');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<table>');
    expect(html).toContain('<del>gone</del>');
    expect(html).toContain('<code class="language-ts">const x = 1;');
    expect(html).toContain('type="checkbox"');
  });

  it('shows raw HTML as text instead of rendering it', () => {
    const html = renderMarkdownToHtml('before <script>alert(1)</script> after\n\n<img src=x onerror=alert(1)>\n\n<div onclick="x()">hi</div>');
    expectInert(html);
    expect(html).toContain('&#x3C;script>alert(1)&#x3C;/script>');
    expect(html).toContain('&#x3C;img src=x onerror=alert(1)>');
  });

  it('keeps http(s), mailto and relative links, drops javascript: and data: links', () => {
    const html = renderMarkdownToHtml(
      '[ok](https://example.com) [mail](mailto:a@b.c) [rel](./x.md) [bad](javascript:alert(1)) [bad2](JAVASCRIPT:alert(1)) [bad3](data:text/html,<script>alert(1)</script>) <javascript:alert(1)> [bad4](vbscript:x)',
    );
    expectInert(html);
    expect(html).toContain('href="https://example.com"');
    expect(html).toContain('href="mailto:a@b.c"');
    expect(html).toContain('href="./x.md"');
    expect(html).not.toMatch(/href="[^"]*(javascript|vbscript|data:)/i);
  });

  it('drops image sources with unsafe schemes', () => {
    const html = renderMarkdownToHtml('![a](javascript:alert(1)) ![b](https://example.com/x.png)');
    expectInert(html);
    expect(html).toContain('src="https://example.com/x.png"');
  });

  it('escapes </script> inside code blocks and inline code', () => {
    const html = renderMarkdownToHtml('```html\n</script><script>alert(1)</script>\n```\n\n`<img onerror=alert(1)>`');
    expectInert(html);
    expect(html).toContain('&#x3C;/script>');
  });
});
