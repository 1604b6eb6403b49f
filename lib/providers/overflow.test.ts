import { describe, expect, it } from 'vitest';
import { classifyProviderError } from './errors';
import { NOT_OVERFLOW_FIXTURES, OVERFLOW_FIXTURES } from '@/lib/testing/overflowErrors';
import { OVERFLOW_PATTERNS, isContextOverflowText, matchOverflow, overflowNumbers, usageOverflow } from './overflow';

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
    expect(unused).toEqual([]);
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
    const mistral = OVERFLOW_FIXTURES.find((f) => f.provider === 'Mistral')!;
    expect(overflowNumbers(mistral.body)).toEqual({ requested: 66385, limit: 32768 });
  });

  it('each of Kimi, MiniMax, Mistral and Together is recognised by its own pattern', () => {
    for (const [provider, source] of [
      ['Kimi (Moonshot)', 'Kimi (Moonshot)'],
      ['MiniMax (Anthropic-compatible endpoint)', 'MiniMax'],
      ['Mistral', 'Mistral'],
      ['Together AI', 'Together AI'],
    ] as const) {
      const f = OVERFLOW_FIXTURES.find((x) => x.provider === provider)!;
      expect(matchOverflow(f.body)?.source, provider).toBe(source);
    }
  });

  it('a body that states both a window overflow and a rate limit is a rate limit: waiting helps, compacting does not', () => {
    const rateLimits = NOT_OVERFLOW_FIXTURES.filter((f) => f.status === 429);
    expect(rateLimits.length).toBeGreaterThanOrEqual(3);
    for (const overflow of OVERFLOW_FIXTURES)
      for (const limit of rateLimits) {
        // A gateway that reports the upstream's throttling next to the overflow wording it also saw.
        const both = `${limit.body}\n${overflow.body}`;
        expect(isContextOverflowText(both), `${overflow.provider} + ${limit.provider}`).toBe(false);
        const info = classifyProviderError({ statusCode: 400, responseBody: both, message: 'Bad Request' }, { provider: overflow.provider });
        expect(info.kind, `${overflow.provider} + ${limit.provider}`).not.toBe('context_overflow');
      }
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
