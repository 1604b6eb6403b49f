import { describe, expect, it } from 'vitest';
import { expectInert } from '@/lib/testing/formatChecks';
import { exportHtml } from '@/lib/formats/export/html';
import { XSS_PAYLOADS } from '@/lib/testing/xssPayloads';
import { renderMarkdownToHtml } from './render';

describe('markdown sanitizer: XSS payloads', () => {
  for (const payload of XSS_PAYLOADS) {
    it(`renders inert: ${payload.slice(0, 60)}`, () => {
      expectInert(renderMarkdownToHtml(payload));
      expectInert(renderMarkdownToHtml(`Some text before.\n\n${payload}\n\nand after`));
    });
  }

  it('an exported transcript made of every payload has no executable construct outside its own stylesheet', () => {
    const t = 1_700_000_000_000;
    const html = exportHtml({
      meta: { id: 's', title: XSS_PAYLOADS[0]!, createdAt: t, updatedAt: t, leafId: `m${XSS_PAYLOADS.length - 1}` },
      entries: XSS_PAYLOADS.map((p, i) => ({
        id: `m${i}`,
        parentId: i === 0 ? null : `m${i - 1}`,
        timestamp: t + i,
        type: 'message' as const,
        message: i % 2 === 0 ? { role: 'user' as const, content: [{ type: 'text' as const, text: p }] } : { role: 'assistant' as const, content: [{ type: 'text' as const, text: p }] },
      })),
    });
    const body = html.slice(html.indexOf('<body'));
    expectInert(body);
    // The payloads are still there, as text.
    expect(body).toContain('&#x3C;script>alert(1)&#x3C;/script>');
  });
});
