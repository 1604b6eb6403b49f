import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { createTokensService } from '@/lib/sessionTokens/service';
import { readFixture, type FixtureName } from '@/lib/testing/fixtures';
import type { Calibration } from './calibration';
import { meterReading, meterVsBreakdown } from './contextFigures';

/**
 * Issue 17, item 6: the meter and the Timeline's breakdown show the same
 * number for the same state, or the breakdown says why not.
 */

function fixturePath(name: FixtureName) {
  const [snap] = importText(readFixture(name), { fileName: `${name}.jsonl` }).sessions;
  return buildSessionContext(snap!.entries, snap!.meta.leafId).path;
}

/** A learned calibration (Claude counts run above o200k), with a fixed per-request offset of either sign. */
const calibration = (offset: number): Calibration => ({ factor: 1.12, offset, samples: 6, outliers: 0, dev: 0.01, sw: 1, su: 0, sz: 0, suu: 0, suz: 0 });
const model = 'anthropic:claude-opus-4-5';

describe('meter and breakdown', () => {
  it('imported Claude Code session: the meter is the provider’s report, the breakdown counts, and the difference is named with both numbers', async () => {
    const api = createTokensService();
    const update = await api.loadPath('s', fixturePath('claudeLog'), { model: 'anthropic:claude-sonnet-4-5', contextWindow: 200_000 });
    const b = api.contextBreakdown('s');
    // Same state, same meter figure.
    expect(b.meter).toEqual(update.figure);
    const meter = meterReading(update.figure, 200_000)!;
    const cmp = meterVsBreakdown(b);
    expect(meter.tokens).toBe(cmp.meter);
    expect(meter.source).toBe('reported');
    expect(meter.text).toContain('reported by the provider');
    expect(cmp.counted).toBe(b.total);
    expect(cmp.difference).toBe(update.figure.tokens - b.total);
    expect(cmp.difference).toBeGreaterThan(0);
    expect(cmp.note).toContain(update.figure.tokens.toLocaleString('en-US'));
    expect(cmp.note).toContain(Math.abs(cmp.difference).toLocaleString('en-US'));
    expect(cmp.note).toMatch(/reported by the provider/);

    // Once the report no longer describes the context (another system prompt), the meter counts too: then it is the breakdown's total.
    const counted = await api.setOptions('s', { systemPrompt: 'Answer in one line.' });
    const b2 = api.contextBreakdown('s');
    expect(counted.figure.source).toBe('estimate');
    expect(b2.total).toBe(counted.figure.tokens);
    expect(meterVsBreakdown(b2).note).toBeNull();
  });

  it.each([250, -40])('calibrated model (offset %i), real pi session: the counted meter equals the breakdown total', async (offset) => {
    const api = createTokensService();
    const update = await api.loadPath('p', fixturePath('piV1'), { model, calibration: calibration(offset), systemPrompt: 'You are terse.', contextWindow: 200_000 });
    expect(update.figure.source).toBe('estimate');
    const b = api.contextBreakdown('p');
    expect(b.total).toBe(update.figure.tokens);
    expect(b.total).toBe(b.system + b.summaries + b.messages + b.toolResults + b.attachments);
    expect(meterVsBreakdown(b).note).toBeNull();
  });

  it('moving to the root (empty path) with a negative calibration offset: 0, never a negative figure, in the meter and the breakdown', async () => {
    const api = createTokensService();
    await api.loadPath('p', fixturePath('piV1'), { model, calibration: calibration(-40), contextWindow: 8_192 });
    const moved = api.switchPath('p', null, []);
    expect(moved.length).toBe(0);
    expect(moved.figure.tokens).toBe(0);
    const reading = meterReading(moved.figure, 8_192)!;
    expect(reading.short).not.toContain('-');
    expect(reading.text).toMatch(/^≈? ?0 of 8,192 tokens/);
    expect(api.contextBreakdown('p').total).toBe(0);
  });
});
