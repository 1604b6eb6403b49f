import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { attributes, expectInert, startTags } from '@/lib/testing/formatChecks';
import { XSS_PAYLOADS } from '@/lib/testing/xssPayloads';
import { loadMath, Markdown } from './Markdown';

describe('app markdown renderer (react-markdown + rehype-sanitize): XSS payloads', () => {
  for (const payload of XSS_PAYLOADS) {
    it(`renders inert: ${payload.slice(0, 60)}`, () => {
      const html = renderToStaticMarkup(<Markdown text={`before\n\n${payload}\n\nafter`} />);
      expectInert(html);
    });
  }

  it('keeps ordinary markdown: emphasis, code, safe links opening in a new tab without referrer', () => {
    const html = renderToStaticMarkup(<Markdown text={'**bold** `code` [site](https://example.com)\n\n```ts\nconst a = 1;\n```'} />);
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>code</code>');
    expect(html).toMatch(/<a href="https:\/\/example.com" target="_blank" rel="noopener noreferrer nofollow">site<\/a>/);
    expect(html).toContain('const a = 1;');
  });

  it('shows raw HTML as text rather than dropping it', () => {
    const html = renderToStaticMarkup(<Markdown text="a <b>tag</b> here" />);
    expect(html).not.toContain('<b>');
    expect(html).toContain('a &lt;b&gt;tag&lt;/b&gt; here');
  });
});

describe('app markdown renderer: math and code blocks', () => {
  it('typesets math with KaTeX (HTML for the eye, MathML for screen readers) once the plugins are loaded', async () => {
    await loadMath();
    const html = renderToStaticMarkup(<Markdown text={'Euler: $e^{i\\pi}+1=0$, and $$\\sum_{i=1}^n i = \\frac{n(n+1)}{2}$$'} />);
    expect(html).toContain('class="katex"');
    expect(html).toContain('<math xmlns="http://www.w3.org/1998/Math/MathML">');
    expect(html).toContain('<annotation encoding="application/x-tex">e^{i\\pi}+1=0</annotation>');
  });

  it('keeps prices as text and runs no link from TeX', async () => {
    await loadMath();
    expect(renderToStaticMarkup(<Markdown text="It costs $5 and $10 a month." />)).not.toContain('katex');
    const html = renderToStaticMarkup(<Markdown text={'$\\href{javascript:alert(1)}{click}$ and $<img src=x onerror=alert(1)>$'} />);
    // The TeX shows as escaped text (its annotation); no element or attribute came out of it.
    for (const tag of startTags(html)) {
      expect(tag).not.toMatch(/^<(img|script|a)\b/i);
      for (const a of attributes(tag)) expect(a.name).not.toMatch(/^(on|href$)/);
    }
  });

  it('gives a fenced block its language label and a Copy button, and keeps the code as text', () => {
    const html = renderToStaticMarkup(<Markdown text={'```python\nprint("<b>hi</b>")\n```'} />);
    expect(html).toContain('aria-label="Code block, python"');
    expect(html).toContain('<span class="code-lang">python</span>');
    expect(html).toContain('aria-label="Copy code"');
    expect(html).toContain('print(&quot;&lt;b&gt;hi&lt;/b&gt;&quot;)');
  });
});
