import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { expectInert } from '@/lib/testing/formatChecks';
import { XSS_PAYLOADS } from '@/lib/testing/xssPayloads';
import { Markdown } from './Markdown';

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
