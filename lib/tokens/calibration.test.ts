import { describe, expect, it } from 'vitest';
import { Rng } from '@/lib/testing/generate';
import { calibratedRequestTokens, emptyCalibration, isCalibrated, MIN_CALIBRATION_SAMPLES, updateCalibration, type Calibration } from './calibration';

/** Requests of growing size as a conversation has them, with the provider's count = factor·counted + offset ± noise. */
function feed(c: Calibration | null, r: Rng, n: number, truth: { factor: number; offset: number; noise: number }, sizes: [number, number] = [500, 150_000]) {
  let cal = c;
  for (let i = 0; i < n; i++) {
    const counted = r.int(sizes[0], sizes[1]);
    const reported = Math.round((truth.factor * counted + truth.offset) * (1 + (r.next() * 2 - 1) * truth.noise));
    cal = updateCalibration(cal, reported, counted);
  }
  return cal!;
}

const relErr = (cal: Calibration, truth: { factor: number; offset: number }, counted: number) => {
  const want = truth.factor * counted + truth.offset;
  return Math.abs(calibratedRequestTokens(counted, cal) - want) / want;
};

describe('updateCalibration', () => {
  it('converges to the true factor and offset on noisy synthetic samples', () => {
    const truth = { factor: 1.18, offset: 3_000, noise: 0.02 };
    const cal = feed(null, new Rng(7), 60, truth);
    expect(cal.samples).toBe(60);
    expect(cal.factor).toBeCloseTo(1.18, 1);
    expect(Math.abs(cal.factor - 1.18)).toBeLessThan(0.03);
    expect(Math.abs(cal.offset - 3_000)).toBeLessThan(1_200);
    // What matters: predictions across the size range are within a few percent.
    for (const counted of [2_000, 20_000, 100_000]) expect(relErr(cal, truth, counted)).toBeLessThan(0.03);
    // Uncalibrated, the small request would be off by far more.
    expect(relErr(emptyCalibration(), truth, 2_000)).toBeGreaterThan(0.5);
  });

  it('learns a pure factor when nothing is hidden', () => {
    const truth = { factor: 0.92, offset: 0, noise: 0.01 };
    const cal = feed(null, new Rng(3), 40, truth, [20_000, 150_000]);
    expect(Math.abs(cal.factor - 0.92)).toBeLessThan(0.02);
    expect(relErr(cal, truth, 80_000)).toBeLessThan(0.02);
  });

  it('ignores outliers: a tenth of the reports three times too large barely move it', () => {
    const truth = { factor: 1.2, offset: 500, noise: 0.01 };
    const r = new Rng(11);
    let clean: Calibration | null = null;
    let dirty: Calibration | null = null;
    for (let i = 0; i < 80; i++) {
      const counted = r.int(5_000, 120_000);
      const reported = Math.round((truth.factor * counted + truth.offset) * (1 + (r.next() * 2 - 1) * truth.noise));
      clean = updateCalibration(clean, reported, counted);
      const outlier = i >= MIN_CALIBRATION_SAMPLES && i % 10 === 5;
      dirty = updateCalibration(dirty, outlier ? reported * 3 : reported, counted);
    }
    expect(dirty!.outliers).toBeGreaterThanOrEqual(7);
    expect(Math.abs(dirty!.factor - clean!.factor) / clean!.factor).toBeLessThan(0.03);
    expect(relErr(dirty!, truth, 60_000)).toBeLessThan(0.03);
  });

  it('follows a real change of tokenizer within a few dozen samples', () => {
    const r = new Rng(5);
    let cal = feed(null, r, 40, { factor: 1.0, offset: 0, noise: 0.01 }, [10_000, 100_000]);
    expect(Math.abs(cal.factor - 1)).toBeLessThan(0.02);
    cal = feed(cal, r, 60, { factor: 1.3, offset: 0, noise: 0.01 }, [10_000, 100_000]);
    expect(Math.abs(cal.factor - 1.3)).toBeLessThan(0.04);
  });

  it('rejects nonsense and counts samples for the "≈" flag', () => {
    const one = updateCalibration(null, 1_200, 1_000);
    expect(updateCalibration(one, 0, 1_000)).toBe(one);
    expect(updateCalibration(one, 1_000, 0)).toBe(one);
    expect(updateCalibration(one, Number.NaN, 1_000)).toBe(one);
    expect(isCalibrated(null)).toBe(false);
    let c: Calibration | null = null;
    for (let i = 0; i < MIN_CALIBRATION_SAMPLES; i++) {
      expect(isCalibrated(c)).toBe(false);
      c = updateCalibration(c, 1_100 * (i + 1), 1_000 * (i + 1));
    }
    expect(isCalibrated(c)).toBe(true);
  });

  it('is plain serialisable data', () => {
    const cal = feed(null, new Rng(1), 10, { factor: 1.1, offset: 100, noise: 0.01 });
    expect(JSON.parse(JSON.stringify(cal))).toEqual(cal);
  });
});
