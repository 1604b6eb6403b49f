import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/lib/session/types';
import { loadSession } from '@/lib/testing/compactionData';
import { describeImage, formatToolArgs, serializeItem, serializeMessage, truncateMiddle } from './serialize';

/** What the summarizer reads of the parts that are not plain text: it must say what was there without the bytes. */

const opts = { toolResultMaxChars: 2000 };
/** A real 1×1 PNG: its header carries the size. */
const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

describe('image and file markers', () => {
  it('an image says its type and its size: given, read from its header, or else its byte length', () => {
    expect(describeImage({ type: 'image', mimeType: 'image/jpeg', width: 640, height: 480, data: PNG_1X1 })).toBe('[image: image/jpeg, 640x480]');
    expect(describeImage({ type: 'image', mimeType: 'image/png', data: PNG_1X1 })).toBe('[image: image/png, 1x1]');
    // Only a width is known: the header is read for both.
    expect(describeImage({ type: 'image', mimeType: 'image/png', width: 50, data: PNG_1X1 })).toBe('[image: image/png, 1x1]');
    expect(describeImage({ type: 'image', mimeType: 'image/webp', url: 'https://example.invalid/a.webp', byteLength: 123_456 })).toBe('[image: image/webp, 123,456 bytes]');
    expect(describeImage({ type: 'image', mimeType: '', url: 'https://example.invalid/a' })).toBe('[image: unknown]');
    // Undecodable data: no size, no bytes, never the data itself.
    const junk = describeImage({ type: 'image', mimeType: 'image/png', data: 'AAAA' });
    expect(junk).toBe('[image: image/png]');
  });

  it('a user file says its name, type and size, with its text cut like a tool result', () => {
    const message: ChatMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'See the attached files.' },
        { type: 'file', name: 'notes.md', mimeType: 'text/markdown', byteLength: 4321, text: 'n'.repeat(3000) },
        { type: 'file', name: 'scan.pdf', mimeType: 'application/pdf', byteLength: 1_048_576 },
        { type: 'image', mimeType: 'image/png', data: PNG_1X1 },
      ],
    };
    const text = serializeMessage(message, opts);
    const [first, fileHead, fileBody, ...rest] = text.split('\n');
    expect(first).toBe('[User]: See the attached files.');
    expect(fileHead).toBe('[file: notes.md (text/markdown, 4,321 bytes)]');
    expect(fileBody).toBe('n'.repeat(1400));
    expect(rest.join('\n')).toContain('[… 1,000 of 3,000 characters truncated …]');
    expect(text).toContain('\n[file: scan.pdf (application/pdf, 1,048,576 bytes)]\n[image: image/png, 1x1]');
    expect(text).not.toContain(PNG_1X1);
  });

  it('an image in a tool result is a marker too', () => {
    const text = serializeMessage({ role: 'toolResult', toolCallId: 'c', toolName: 'screenshot', isError: false, content: [{ type: 'text', text: 'Captured.' }, { type: 'image', mimeType: 'image/png', data: PNG_1X1 }] }, opts);
    expect(text).toBe('[Tool result] screenshot: Captured.\n[image: image/png, 1x1]');
  });
});

describe('reply endings and other items', () => {
  const reply = (extra: Partial<Extract<ChatMessage, { role: 'assistant' }>>) => serializeMessage({ role: 'assistant', content: [{ type: 'text', text: 'Working on it' }], ...extra }, opts);

  it('a failed, interrupted or cut-off reply says so, with the error when there is one', () => {
    expect(reply({ stopReason: 'error', errorMessage: '529 overloaded' })).toBe('[Assistant]: Working on it\n[Assistant error]: 529 overloaded');
    expect(reply({ stopReason: 'error' })).toBe('[Assistant]: Working on it\n[Assistant error]: the reply failed');
    expect(reply({ stopReason: 'interrupted' })).toBe('[Assistant]: Working on it\n[Assistant reply was interrupted]');
    expect(reply({ stopReason: 'length' })).toBe('[Assistant]: Working on it\n[Assistant reply was cut off at the output limit]');
    expect(reply({ stopReason: 'stop' })).toBe('[Assistant]: Working on it');
    // Blank text and blank or redacted thinking add no line.
    expect(serializeMessage({ role: 'assistant', content: [{ type: 'thinking', thinking: '  ' }, { type: 'text', text: ' \n' }, { type: 'text', text: 'Done.' }] }, opts)).toBe('[Assistant]: Done.');
  });

  it('an earlier summary met inside the span is marked as such', () => {
    expect(serializeItem({ kind: 'compactionSummary', entryId: 'c', summary: '## Goal\nShip it.' }, opts)).toBe('[Earlier summary]: ## Goal\nShip it.');
  });

  it('tool arguments: each long string is cut on its own, so a path after a huge content survives', () => {
    const args = { content: 'c'.repeat(5000), path: '/repo/src/big.ts', nested: { list: ['d'.repeat(5000), 3, null] } };
    const json = formatToolArgs(args, 2000);
    expect(json.length).toBeLessThanOrEqual(2000 + 80);
    expect(json).toContain('"path":"/repo/src/big.ts"');
    // Each value is cut to a quarter of the budget (500 characters), with its own marker.
    expect(json).toContain('4,500 of 5,000 characters truncated');
    expect(json).toContain(',3,null]');
    // A small budget still leaves each value 120 characters.
    expect(formatToolArgs({ v: 'e'.repeat(1000) }, 400)).toContain('880 of 1,000 characters truncated');
  });

  it('arguments that cannot be serialised do not break the transcript', () => {
    const loop: Record<string, unknown> = { name: 'x' };
    loop.self = loop;
    expect(formatToolArgs(loop, 2000)).toBe('{…unserialisable…}');
    expect(formatToolArgs(undefined as unknown as Record<string, unknown>, 2000)).toBe('{}');
  });

  it('truncateMiddle: a zero budget is the marker alone; the head takes 70 %', () => {
    expect(truncateMiddle('abcdef', 0, 'gone')).toBe('[… 6 of 6 characters gone …]');
    expect(truncateMiddle('0123456789', 1)).toBe('0\n[… 9 of 10 characters truncated …]\n');
    expect(truncateMiddle('0123456789abcdefghij', 10)).toBe('0123456\n[… 10 of 20 characters truncated …]\nhij');
  });

  it('on the real pi session every message serialises without base64 and within its cut', () => {
    const { path } = loadSession('piV1');
    for (const e of path) {
      if (e.type !== 'message') continue;
      const text = serializeMessage(e.message, opts);
      expect(text).not.toMatch(/[A-Za-z0-9+/]{400,}/);
      if (e.message.role === 'toolResult') expect(text.length).toBeLessThan(2000 + 200 + e.message.toolName.length);
    }
  });
});
