import { describe, expect, it } from 'vitest';
import { calibratedRequestTokens, emptyCalibration, MIN_CALIBRATION_SAMPLES, updateCalibration, type Calibration } from './calibration';

/** `n` exact samples of reported = factor·counted + offset, over a spread of sizes. */
function exact(n: number, factor: number, offset: number, sizes = [1_000, 4_000, 16_000, 64_000, 120_000]): Calibration {
  let c: Calibration | null = null;
  for (let i = 0; i < n; i++) {
    const counted = sizes[i % sizes.length]!;
    c = updateCalibration(c, factor * counted + offset, counted);
  }
  return c!;
}

describe('calibration: the outlier guard and the fallbacks', () => {
  it('the outlier guard starts with the sample after the third: the third sample itself may be far off, the fourth may not', () => {
    const three = exact(MIN_CALIBRATION_SAMPLES - 1, 1.1, 0);
    expect(updateCalibration(three, 3 * 1.1 * 5_000, 5_000).outliers).toBe(0);
    const calibrated = exact(MIN_CALIBRATION_SAMPLES, 1.1, 0);
    expect(updateCalibration(calibrated, 3 * 1.1 * 5_000, 5_000).outliers).toBe(1);
  });

  it('a sample is judged against the prediction with the offset: an exact small request is not an outlier', () => {
    const cal = exact(30, 1.05, 4_000);
    expect(cal.offset).toBeGreaterThan(2_000);
    // 1,000 counted → 5,050 reported: five times the counted size, exactly as predicted.
    const next = updateCalibration(cal, 1.05 * 1_000 + 4_000, 1_000);
    expect(next.outliers).toBe(cal.outliers);
  });

  it('residuals within four deviations are not outliers even above 15 %; beyond the larger bound they are clamped to it', () => {
    const cal = exact(MIN_CALIBRATION_SAMPLES, 1, 0);
    // Early on the deviation is still the prior's 0.1: the bound is max(4 × 0.1, 0.15) = 40 %.
    expect(cal.dev).toBeGreaterThan(0.05);
    const bound = Math.max(4 * cal.dev, 0.15);
    expect(updateCalibration(cal, 10_000 * (1 + bound * 0.8), 10_000).outliers).toBe(0);
    const far = updateCalibration(cal, 10_000 * 5, 10_000);
    expect(far.outliers).toBe(1);
    // The clamped sample weighs exactly as a sample at the bound would.
    const atBound = updateCalibration(cal, cal.factor * 10_000 * (1 + bound) + cal.offset * (10_000 / 10_000), 10_000);
    expect(far.factor).toBeCloseTo(atBound.factor, 10);
    expect(far.offset).toBeCloseTo(atBound.offset, 6);
    const low = updateCalibration(cal, 10_000 * 0.05, 10_000);
    const atLowBound = updateCalibration(cal, (cal.factor * 10_000 + cal.offset) * (1 - bound), 10_000);
    expect(low.factor).toBeCloseTo(atLowBound.factor, 10);
  });

  it('with a negative offset that predicts nothing for a tiny request, the sample is taken as it is', () => {
    const cal = exact(40, 1, -4_500, [60_000, 90_000, 150_000]);
    expect(cal.offset).toBeLessThan(-1_000);
    const predicted = cal.factor + cal.offset / 1_000;
    expect(predicted).toBeLessThanOrEqual(0);
    const next = updateCalibration(cal, 50, 1_000);
    expect(next.outliers).toBe(cal.outliers);
    expect(next.dev).toBe(cal.dev);
  });

  it('sums a stored calibration can no longer solve (inconsistent) give the plain ratio and no offset, within bounds', () => {
    const broken: Calibration = { ...emptyCalibration(), samples: 1, sw: 1, su: 5, sz: 1.2, suu: 1e-9, suz: 0 };
    const next = updateCalibration(broken, 1_300, 1_000);
    expect(next.offset).toBe(0);
    expect(next.factor).toBeCloseTo(next.sz / (next.sw + 0.1) || 0, 0);
    expect(next.factor).toBeCloseTo((1.2 * 0.95 + 1.3 + 0.1) / (1 * 0.95 + 1 + 0.1), 10);
    // Far off data clamps to the factor's bounds.
    const huge = updateCalibration({ ...broken, sz: 1_000 }, 1_300, 1_000);
    expect(huge.factor).toBe(4);
  });

  it('without a calibration the counted size is the prediction', () => {
    expect(calibratedRequestTokens(12_345, null)).toBe(12_345);
    expect(calibratedRequestTokens(12_345, undefined)).toBe(12_345);
    expect(calibratedRequestTokens(10_000, { ...emptyCalibration(), factor: 1.5, offset: 200 })).toBe(15_200);
  });
});
