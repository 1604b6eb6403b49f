import { describe, expect, it } from 'vitest';
import { messageText } from '@/lib/session/messages';
import { importText } from '@/lib/formats/import';
import { FIXTURES, readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { cleanTitle, titlePrompt, TITLE_MAX_CHARS, TITLE_SYSTEM, wordTitle } from './title';

describe('wordTitle: a title from the first prompt', () => {
  it('keeps a short prompt whole', () => {
    expect(wordTitle('What is the capital of France?')).toBe('What is the capital of France?');
  });
  it('cuts a long one between words, within the length, marking the cut', () => {
    const t = wordTitle('Please review the following pull request carefully and tell me whether the locking in the cache layer is correct');
    expect(t).toBe('Please review the following pull request carefully and…');
    expect(t.length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
  });
  it('drops markdown at the start and flattens line breaks; a single endless word is cut by length', () => {
    expect(wordTitle('## Plan\n\nrefactor   the worker')).toBe('Plan refactor the worker');
    expect(wordTitle('x'.repeat(200))).toBe(`${'x'.repeat(TITLE_MAX_CHARS - 1)}…`);
    expect(wordTitle('   ')).toBe('Untitled');
  });
  it('gives the first prompt of every session in the real transcripts a one-line title within the length', () => {
    let seen = 0;
    for (const name of Object.keys(FIXTURES) as FixtureName[]) {
      for (const s of importText(readFixture(name), { fileName: FIXTURES[name] }).sessions) {
        const first = s.entries.find((e) => e.type === 'message' && e.message.role === 'user');
        if (first?.type !== 'message' || !messageText(first.message).trim()) continue;
        const t = wordTitle(messageText(first.message));
        expect(t.length, name).toBeGreaterThan(0);
        expect(t.length, name).toBeLessThanOrEqual(TITLE_MAX_CHARS);
        expect(t, name).not.toMatch(/\n/);
        seen++;
      }
    }
    expect(seen).toBeGreaterThanOrEqual(Object.keys(FIXTURES).length);
  });
});

describe('cleanTitle: a model’s answer as a title', () => {
  it('strips the wrapping models add', () => {
    expect(cleanTitle('"Borrow Checker Basics"')).toBe('Borrow Checker Basics');
    expect(cleanTitle('Title: Borrow checker basics.')).toBe('Borrow checker basics');
    expect(cleanTitle('**Sourdough troubleshooting**\n\nThis title reflects…')).toBe('Sourdough troubleshooting');
    expect(cleanTitle('Here is a title: Paris trivia')).toBe('Paris trivia');
    expect(cleanTitle('# Rust lifetimes')).toBe('Rust lifetimes');
  });
  it('keeps titles that merely contain a colon or the word title', () => {
    expect(cleanTitle('Rust: lifetimes explained')).toBe('Rust: lifetimes explained');
    expect(cleanTitle('Choosing a book title')).toBe('Choosing a book title');
  });
  it('nothing usable is null; a rambling answer is cut', () => {
    expect(cleanTitle('')).toBeNull();
    expect(cleanTitle('  \n "" \n')).toBeNull();
    expect(cleanTitle('a '.repeat(40))!.length).toBeLessThanOrEqual(TITLE_MAX_CHARS);
  });
});

describe('the title request', () => {
  it('shows the model the start of the exchange, and never says "summar" (the test LLM would take it for a summary)', () => {
    const p = titlePrompt('q'.repeat(5000), 'a'.repeat(5000));
    expect(p.length).toBeLessThan(3100);
    expect(p.startsWith('<user>\nqqq')).toBe(true);
    expect(`${TITLE_SYSTEM}${p}`).not.toMatch(/summar/i);
    expect(TITLE_SYSTEM).toMatch(/conversation title/);
  });
});
