/**
 * Per-model calibration of o200k counts to a provider's own token counts.
 *
 * Claude, Gemini and local models have no public tokenizer, but every reply
 * reports how many input tokens the request had. Comparing that with what we
 * counted for the same request gives samples of the model
 *
 *     reported ≈ factor × counted + offset
 *
 * where `factor` is the tokenizer difference (Claude's tokenizer yields more
 * tokens than o200k for the same text) and `offset` is what every request
 * carries that we never see: provider framing, tool schemas, the system
 * prompt of whatever app wrote an imported transcript. Without the offset, a
 * coding agent's 3,000-token hidden prompt inflates the factor of small
 * requests and then misprices every large one.
 *
 * The fit is weighted least squares in relative terms (z = reported/counted
 * against u = 1/counted, so z = factor + offset·u), with exponential
 * forgetting so a provider's tokenizer change is followed, a fading prior
 * at factor 1 / offset 0 so one sample cannot run away, and residual clamping so
 * a mis-attributed usage report (a retried request, a cache bug) moves the
 * estimate by a bounded step instead of throwing it off.
 *
 * All state is plain numbers: lib/db persists it as is.
 */
export interface Calibration {
  /** Provider tokens per counted token. */
  factor: number;
  /** Provider tokens per request that the counted context does not contain. */
  offset: number;
  /** Accepted samples (clamped ones included). */
  samples: number;
  /** Samples whose residual was clamped as an outlier. */
  outliers: number;
  /** Running mean of the absolute relative residual, the scale of "normal" noise. */
  dev: number;
  /** Decayed sums of the fit: weights, u, z, u², u·z. */
  sw: number;
  su: number;
  sz: number;
  suu: number;
  suz: number;
  /**
   * Timestamp of the newest reply folded in. Replies are only sampled when
   * newer, so a session reloaded (and its path re-sent to a fresh worker)
   * does not count the same usage again.
   */
  lastSampledAt?: number;
}

/** Below this many samples the UI shows counts as approximate ("≈"). */
export const MIN_CALIBRATION_SAMPLES = 3;
/** Each new sample multiplies the weight of the older ones by this (≈ the last 20 samples matter). */
export const CALIBRATION_DECAY = 0.95;
/**
 * The prior (factor 1, offset 0) enters the sums as PRIOR_WEIGHT samples that
 * decay like real ones, so it steadies the first few samples and then fades;
 * a small permanent part keeps the fit well-posed when all requests have
 * about the same size.
 */
const PRIOR_WEIGHT = 2;
const PRIOR_FLOOR = 0.1;
/**
 * The offset's prior sits at 1/u = 20,000 tokens: only requests well below
 * that size can move the offset much. Large requests pin the factor.
 */
const OFFSET_PRIOR_UU = (1 / 20_000) ** 2;
const FACTOR_BOUNDS = [0.25, 4] as const;
const OFFSET_BOUNDS = [-5_000, 200_000] as const;
/** Residuals beyond max(4 × dev, 15 %) are clamped to that bound. */
const OUTLIER_DEVS = 4;
const OUTLIER_FLOOR = 0.15;
const DEV_ALPHA = 0.1;

export function emptyCalibration(): Calibration {
  const w = PRIOR_WEIGHT;
  return { factor: 1, offset: 0, samples: 0, outliers: 0, dev: 0.1, sw: w, su: 0, sz: w, suu: w * OFFSET_PRIOR_UU, suz: 0 };
}

export function isCalibrated(c: Calibration | null | undefined): boolean {
  return !!c && c.samples >= MIN_CALIBRATION_SAMPLES;
}

const clamp = (x: number, [lo, hi]: readonly [number, number]) => Math.min(hi, Math.max(lo, x));

function solve(s: Pick<Calibration, 'sw' | 'su' | 'sz' | 'suu' | 'suz'>): { factor: number; offset: number } {
  const sw = s.sw + PRIOR_FLOOR;
  const sz = s.sz + PRIOR_FLOOR;
  const suu = s.suu + PRIOR_FLOOR * OFFSET_PRIOR_UU;
  const det = sw * suu - s.su * s.su;
  if (!(det > 1e-18)) return { factor: clamp(sz / sw, FACTOR_BOUNDS), offset: 0 };
  const factor = (sz * suu - s.su * s.suz) / det;
  const offset = (sw * s.suz - s.su * sz) / det;
  return { factor: clamp(factor, FACTOR_BOUNDS), offset: clamp(offset, OFFSET_BOUNDS) };
}

/**
 * Folds one request into the calibration: `reportedInput` is the provider's
 * input token count for the request (input + cache reads + cache writes),
 * `countedInput` our o200k count of the same request. Returns a new object;
 * nonsense samples (zero, negative, not finite) return `prev` unchanged.
 */
export function updateCalibration(prev: Calibration | null | undefined, reportedInput: number, countedInput: number): Calibration {
  const base = prev ?? emptyCalibration();
  if (!(reportedInput > 0 && countedInput > 0 && Number.isFinite(reportedInput) && Number.isFinite(countedInput))) return base;
  const u = 1 / countedInput;
  let z = reportedInput / countedInput;
  let outliers = base.outliers;
  let dev = base.dev;
  if (base.samples >= MIN_CALIBRATION_SAMPLES) {
    const predicted = base.factor + base.offset * u;
    if (predicted > 0) {
      const rel = z / predicted - 1;
      const limit = Math.max(OUTLIER_DEVS * dev, OUTLIER_FLOOR);
      if (Math.abs(rel) > limit) {
        outliers++;
        z = predicted * (1 + Math.sign(rel) * limit);
      }
      dev += DEV_ALPHA * (Math.min(Math.abs(rel), limit) - dev);
    }
  }
  const d = CALIBRATION_DECAY;
  const sums = {
    sw: base.sw * d + 1,
    su: base.su * d + u,
    sz: base.sz * d + z,
    suu: base.suu * d + u * u,
    suz: base.suz * d + u * z,
  };
  const { factor, offset } = solve(sums);
  return { ...sums, factor, offset, samples: base.samples + 1, outliers, dev };
}

/** Provider tokens predicted for a request we counted at `counted` (offset once per request). */
export function calibratedRequestTokens(counted: number, c: Calibration | null | undefined): number {
  if (!c) return counted;
  return c.factor * counted + c.offset;
}
