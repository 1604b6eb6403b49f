import { describe, expect, it } from 'vitest';
import { loadSession } from '@/lib/testing/compactionData';
import { messageText, oneLine } from './messages';
import type { ChatMessage } from './types';

describe('messageText', () => {
  it('is the text parts only, joined by a blank line', () => {
    const m: ChatMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hidden reasoning' },
        { type: 'text', text: 'First.' },
        { type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls' } },
        { type: 'text', text: 'Second.' },
      ],
    };
    expect(messageText(m)).toBe('First.\n\nSecond.');
    expect(messageText({ role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' }] })).toBe('');
  });

  it('real Claude Code log: never carries the thinking or the tool arguments, and keeps every text part whole', () => {
    const { path } = loadSession('claudeLog');
    let withThinking = 0;
    for (const e of path) {
      if (e.type !== 'message') continue;
      const text = messageText(e.message);
      for (const p of e.message.content) {
        if (p.type === 'text') expect(text).toContain(p.text);
        if (p.type === 'thinking' && p.thinking.length > 20) {
          withThinking++;
          expect(text).not.toContain(p.thinking);
        }
      }
    }
    expect(withThinking).toBeGreaterThan(0);
  });
});

describe('oneLine', () => {
  it('folds every run of white space into one space and trims the ends', () => {
    expect(oneLine('  Fix the\n\n  build\tplease  ')).toBe('Fix the build please');
  });

  it('cuts to at most `max` characters (120 by default), the last one an ellipsis', () => {
    const long = 'word '.repeat(100);
    expect(oneLine(long)).toHaveLength(120);
    expect(oneLine(long).endsWith('…')).toBe(true);
    expect(oneLine(long).slice(0, 119)).toBe(long.slice(0, 119));
    expect(oneLine('x'.repeat(120))).toBe('x'.repeat(120));
    expect(oneLine('x'.repeat(121))).toBe(`${'x'.repeat(119)}…`);
    expect(oneLine('abcdef', 5)).toBe('abcd…');
    expect(oneLine('abcde', 5)).toBe('abcde');
  });
});
