import { scaledSettingText, windowBudget } from '@/lib/compaction/policy';
import type { CompactionSettings } from '@/lib/session/types';

/**
 * The compaction settings as a form edits them: text fields, the threshold
 * in percent. Parsing says which field is wrong, in words for the form.
 */
export interface CompactionForm {
  enabled: boolean;
  reserveTokens: string;
  keepRecentTokens: string;
  thresholdPercent: string;
  toolResultMaxChars: string;
  /** The self-check pass after a model summary (a second request). */
  selfCheck: boolean;
  maskToolOutput: boolean;
  maskProtectTokens: string;
  /** Automatic compactions wait for the user to apply them. */
  reviewBeforeApply: boolean;
}

export function toCompactionForm(overrides: Partial<CompactionSettings>, base: CompactionSettings): CompactionForm {
  const v = { ...base, ...overrides };
  return {
    enabled: v.enabled,
    reserveTokens: String(v.reserveTokens),
    keepRecentTokens: String(v.keepRecentTokens),
    thresholdPercent: v.thresholdPercent !== undefined ? String(Math.round(v.thresholdPercent * 100)) : '',
    toolResultMaxChars: String(v.toolResultMaxChars),
    selfCheck: v.selfCheck ?? false,
    maskToolOutput: v.maskToolOutput ?? false,
    maskProtectTokens: String(v.maskProtectTokens ?? v.keepRecentTokens),
    reviewBeforeApply: v.reviewBeforeApply ?? false,
  };
}

export type FormResult = { ok: true; value: CompactionSettings } | { ok: false; error: string };

export function parseCompactionForm(form: CompactionForm): FormResult {
  const errors: string[] = [];
  const int = (s: string, name: string, min = 0): number => {
    const n = Number(s.trim());
    if (s.trim() === '' || !Number.isInteger(n) || n < min) errors.push(`${name} must be a whole number ≥ ${min}.`);
    return n;
  };
  const pct = form.thresholdPercent.trim();
  const threshold = pct === '' ? undefined : int(pct, 'Threshold', 1);
  if (threshold !== undefined && threshold > 100) errors.push('Threshold must be at most 100 %.');
  const value: CompactionSettings = {
    enabled: form.enabled,
    reserveTokens: int(form.reserveTokens, 'Reserve tokens'),
    keepRecentTokens: int(form.keepRecentTokens, 'Keep recent tokens'),
    toolResultMaxChars: int(form.toolResultMaxChars, 'Tool result max characters'),
    selfCheck: form.selfCheck,
    maskToolOutput: form.maskToolOutput,
    maskProtectTokens: int(form.maskProtectTokens, 'Protected recent tokens'),
    reviewBeforeApply: form.reviewBeforeApply,
    ...(threshold !== undefined ? { thresholdPercent: threshold / 100 } : {}),
  };
  return errors.length ? { ok: false, error: errors[0]! } : { ok: true, value };
}

/**
 * What the chat model's window would scale down in the settings as typed, in
 * the words the meter uses; none while the form does not parse or no window
 * is known.
 */
export function windowNotes(form: CompactionForm, window: number | undefined): string[] {
  const parsed = parseCompactionForm(form);
  if (!parsed.ok) return [];
  return windowBudget(parsed.value, window).scaled.map(scaledSettingText);
}
