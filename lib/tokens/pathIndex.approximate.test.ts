import { describe, expect, it } from 'vitest';
import { TreeBuilder } from '@/lib/testing/builder';
import { createExactCounter } from './exact';
import { PathTokenIndex } from './pathIndex';

const counter = () => createExactCounter({ encoding: 'o200k_base', imageFormula: 'anthropic' });
const UNCALIBRATED = { factor: 1.25, offset: 300, approximate: true };
const CALIBRATED = { factor: 1.1, offset: 40, approximate: false };

/** "≈" on the context figure means part of it is our estimate under a calibration we do not trust yet. */
describe('the approximate flag of the context figure', () => {
  it('a figure that is only the last reply’s reported usage is exact, even before calibration', () => {
    const b = new TreeBuilder();
    b.user('what is in the cache?');
    b.assistant('the last three builds', undefined, { usage: { input: 1_200, output: 40 }, status: 'complete' });
    const index = new PathTokenIndex(counter(), { calibration: UNCALIBRATED, requestTokens: 3 });
    for (const e of b.entries) index.push(e);
    const fig = index.figure();
    expect(fig).toMatchObject({ source: 'usage+estimate', usageTokens: 1_240, estimatedTokens: 0, tokens: 1_240 });
    expect(fig.approximate).toBe(false);
  });

  it('becomes approximate once estimated messages follow the report, and only under an untrusted calibration', () => {
    const b = new TreeBuilder();
    b.user('what is in the cache?');
    b.assistant('the last three builds', undefined, { usage: { input: 1_200, output: 40 }, status: 'complete' });
    b.user('and which of them failed?');
    for (const [cal, approximate] of [
      [UNCALIBRATED, true],
      [CALIBRATED, false],
    ] as const) {
      const index = new PathTokenIndex(counter(), { calibration: cal, requestTokens: 3 });
      for (const e of b.entries) index.push(e);
      const fig = index.figure();
      expect(fig.source).toBe('usage+estimate');
      expect(fig.estimatedTokens).toBeGreaterThan(0);
      expect(fig.approximate).toBe(approximate);
    }
  });

  it('a figure without any report follows the calibration', () => {
    const b = new TreeBuilder();
    b.user('a first question');
    for (const [cal, approximate] of [
      [UNCALIBRATED, true],
      [CALIBRATED, false],
    ] as const) {
      const index = new PathTokenIndex(counter(), { calibration: cal, requestTokens: 3 });
      for (const e of b.entries) index.push(e);
      expect(index.figure()).toMatchObject({ source: 'estimate', approximate });
    }
  });
});
