import { describe, expect, it } from 'vitest';
import { classifyProviderError } from './errors';
import { NOT_OVERFLOW_FIXTURES, OVERFLOW_FIXTURES } from '@/lib/testing/overflowErrors';
import { OVERFLOW_PATTERNS, isContextOverflowText, overflowNumbers, usageOverflow } from './overflow';

describe('context overflow recognition on real provider bodies', () => {
  it.each(OVERFLOW_FIXTURES.map((f) => [f.provider, f] as const))('%s is an overflow', (_name, f) => {
    expect(isContextOverflowText(f.body)).toBe(true);
  });

  it.each(NOT_OVERFLOW_FIXTURES.map((f) => [f.provider, f] as const))('%s is not an overflow', (_name, f) => {
    expect(isContextOverflowText(f.body)).toBe(false);
  });

  it('covers many providers, and every pattern is exercised by at least one real body', () => {
    expect(OVERFLOW_PATTERNS.length).toBeGreaterThanOrEqual(17);
    const providers = new Set(OVERFLOW_FIXTURES.map((f) => f.provider.split(' (')[0]));
    expect(providers.size).toBeGreaterThanOrEqual(15);
    const unused = OVERFLOW_PATTERNS.filter((p) => !OVERFLOW_FIXTURES.some((f) => p.re.test(f.body))).map((p) => p.source);
    // Wordings known from provider documentation and other projects' notes, without a public raw body to cite.
    expect(unused.sort()).toEqual(['Kimi (Moonshot)', 'MiniMax', 'Mistral', 'Together AI']);
  });

  it('classifies the same bodies the way the client will see them', () => {
    for (const f of OVERFLOW_FIXTURES) {
      const info = classifyProviderError({ statusCode: f.status, responseBody: f.body, message: 'Bad Request' }, { provider: f.provider });
      expect(info.kind, f.provider).toBe('context_overflow');
    }
    for (const f of NOT_OVERFLOW_FIXTURES) {
      const info = classifyProviderError({ statusCode: f.status, responseBody: f.body, message: 'x' }, { provider: f.provider });
      expect(info.kind, f.provider).not.toBe('context_overflow');
      if (f.status === 429) expect(info.kind).toBe('rate_limit');
      if (f.status === 401) expect(info.kind).toBe('auth');
    }
  });

  it('reads the numbers where the provider states them', () => {
    const anthropic = OVERFLOW_FIXTURES.find((f) => f.provider === 'Anthropic')!;
    expect(overflowNumbers(anthropic.body)).toEqual({ requested: 208310, limit: 200000 });
    const openai = OVERFLOW_FIXTURES.find((f) => f.provider.startsWith('OpenAI (chat, messages only)'))!;
    expect(overflowNumbers(openai.body)).toEqual({ requested: 4294, limit: 4097 });
    const gemini = OVERFLOW_FIXTURES.find((f) => f.provider === 'Google Gemini')!;
    expect(overflowNumbers(gemini.body)).toEqual({ requested: 132478, limit: 131072 });
    const llama = OVERFLOW_FIXTURES.find((f) => f.provider === 'llama.cpp server')!;
    expect(overflowNumbers(llama.body)).toEqual({ requested: 1407, limit: 256 });
    const xai = OVERFLOW_FIXTURES.find((f) => f.provider === 'xAI')!;
    expect(overflowNumbers(xai.body)).toEqual({ requested: 136973, limit: 131072 });
  });
});

describe('usageOverflow (silent truncation)', () => {
  it('flags reported input at or above the window', () => {
    expect(usageOverflow(8192, 8192)).toBe(true);
    expect(usageOverflow(9000, 8192)).toBe(true);
    expect(usageOverflow(8191, 8192)).toBe(false);
  });
  it('says nothing without both numbers', () => {
    expect(usageOverflow(undefined, 8192)).toBe(false);
    expect(usageOverflow(9000, undefined)).toBe(false);
    expect(usageOverflow(9000, 0)).toBe(false);
    expect(usageOverflow(Number.NaN, 8192)).toBe(false);
  });
});
