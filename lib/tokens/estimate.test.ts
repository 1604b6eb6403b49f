import { describe, expect, it } from 'vitest';
import { readFixture, type FixtureName } from '@/lib/testing/fixtures';
import { generateSession } from '@/lib/testing/generate';
import { countEntry, countText } from './exact';
import { estimateEntryTokens, estimateTextTokens } from './estimate';

function errors(pairs: { exact: number; est: number }[]) {
  let sumExact = 0;
  let sumEst = 0;
  let rel = 0;
  for (const p of pairs) {
    sumExact += p.exact;
    sumEst += p.est;
    rel += Math.abs(p.est - p.exact) / p.exact;
  }
  return { total: Math.abs(sumEst / sumExact - 1), mean: rel / pairs.length };
}

/** Text fields of a raw transcript, without embedded base64 (as an importer would see the prose, code and logs). */
function transcriptTexts(name: FixtureName): string[] {
  const out: string[] = [];
  const walk = (v: unknown, key: string): void => {
    if (typeof v === 'string') {
      if (['text', 'content', 'thinking', 'summary', 'command', 'parts'].includes(key) && v.length >= 40) out.push(v);
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'data') walk(x, k);
  };
  for (const line of readFixture(name).split('\n')) {
    for (const part of line.replace(/}{"type"/g, '}\n{"type"').split('\n')) if (part.trim()) walk(JSON.parse(part), '');
  }
  return out;
}

describe('estimateTextTokens (no tokenizer)', () => {
  it('is closer to o200k than chars/4 on real transcripts', () => {
    for (const name of ['piV1', 'claudeViewer', 'claudeLog'] as const) {
      const texts = transcriptTexts(name);
      expect(texts.length).toBeGreaterThan(50);
      const heur = errors(texts.map((t) => ({ exact: countText(t), est: estimateTextTokens(t) })));
      const c4 = errors(texts.map((t) => ({ exact: countText(t), est: Math.ceil(t.length / 4) })));
      expect(heur.mean, name).toBeLessThan(c4.mean);
      expect(heur.total, name).toBeLessThan(0.1);
      expect(heur.mean, name).toBeLessThan(0.2);
    }
  });

  it('handles the text shapes it was designed around', () => {
    const cases = ['Hello world', 'const fooBarBaz = 12345678;', '这个函数的返回值不正确', '\n\n\n        indented', '))));;;;', ''];
    for (const c of cases) {
      const exact = countText(c);
      expect(Math.abs(estimateTextTokens(c) - exact), c).toBeLessThanOrEqual(Math.max(2, exact * 0.35));
    }
  });
});

describe('estimateEntryTokens', () => {
  it('tracks the exact entry count with the same framing', () => {
    const { entries } = generateSession({ seed: 3, entries: 2_000 });
    const pairs = entries.map((e) => ({ exact: countEntry(e).o200k, est: estimateEntryTokens(e) })).filter((p) => p.exact > 0);
    const chars4 = entries.map((e) => ({ exact: countEntry(e).o200k, est: countEntry(e).chars4 })).filter((p) => p.exact > 0);
    const h = errors(pairs);
    expect(h.total).toBeLessThan(0.05);
    expect(h.mean).toBeLessThan(errors(chars4).mean);
  });
});
