import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '@/lib/session/types';
import { compactionLimit, scaledSettingText, settingsForWindow, summaryOutputBudget, windowBudget } from './policy';
import { effectiveKeepRecent, keptRoom } from './prepare';

/** The settings as a window lets them work: small windows scale, large ones are left alone. */

const s = DEFAULT_COMPACTION_SETTINGS;

/** The room a compaction leaves before the next one, at worst: the limit minus what a compaction keeps and writes. */
function roomAfter(settings: CompactionSettings, window: number): number {
  const b = windowBudget(settings, window);
  return b.limit - b.settings.keepRecentTokens - b.summaryBudget;
}

describe('settingsForWindow', () => {
  it('a 3,000-token window with the defaults: reserve, keep-recent and summary scale so a compaction leaves nearly half the limit free', () => {
    const b = windowBudget(s, 3_000);
    expect(b.settings.reserveTokens).toBe(750);
    expect(b.settings.keepRecentTokens).toBe(600);
    expect(b.summaryBudget).toBe(600);
    expect(b.limit).toBe(2_250);
    expect(roomAfter(s, 3_000)).toBe(1_050);
    // Unscaled, the limit is half the window and the summary alone may be four times the window.
    expect(compactionLimit(3_000, s)).toBe(1_500);
    expect(summaryOutputBudget(s)).toBeGreaterThan(3_000 * 4);
  });

  it('says what it changed in words the settings and the meter show', () => {
    const b = windowBudget(s, 8_192);
    expect(b.scaled.map(scaledSettingText)).toEqual([
      'Reserve 16,384 is more than a quarter of this model’s 8,192-token window: 2,048 is used.',
      'Keep recent 20,000 is more than a fifth of this model’s 8,192-token window: 1,638 is used.',
    ]);
  });

  it('a 128k window keeps the settings as they are and says nothing', () => {
    const b = windowBudget(s, 128_000);
    expect(b.settings).toEqual(s);
    expect(b.scaled).toEqual([]);
    expect(b.limit).toBe(128_000 - 16_384);
  });

  it('no known window: the settings as they are', () => {
    for (const w of [undefined, 0, -5, Number.NaN]) expect(settingsForWindow(s, w)).toBe(s);
  });

  it('a low threshold shrinks the summary budget and keep-recent with the limit, and says why', () => {
    const settings = { ...s, thresholdPercent: 0.5 };
    const b = windowBudget(settings, 8_192);
    expect(b.limit).toBe(4_096);
    expect(b.summaryBudget).toBeLessThanOrEqual(Math.floor(4_096 / 3));
    expect(b.settings.keepRecentTokens + b.summaryBudget).toBeLessThanOrEqual(Math.floor((4_096 * 2) / 3));
    expect(b.scaled.every((x) => x.why === 'room')).toBe(true);
    expect(scaledSettingText(b.scaled[0]!)).toMatch(/^Reserve 16,384 would leave too little room after a compaction under the threshold/);
  });

  it('protected recent tokens follow keep-recent, and are only mentioned when masking is on', () => {
    expect(windowBudget(s, 8_192).settings.maskProtectTokens).toBe(1_638);
    expect(windowBudget(s, 8_192).scaled.some((x) => x.field === 'maskProtectTokens')).toBe(false);
    expect(windowBudget({ ...s, maskToolOutput: true }, 8_192).scaled.map((x) => x.field)).toContain('maskProtectTokens');
  });

  it('for any window and settings: idempotent, never larger than set, and the kept part plus the summary leave room under the limit', () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2_000; i++) {
      const window = 1_000 + rand(300_000);
      const settings: CompactionSettings = {
        ...s,
        reserveTokens: rand(40_000),
        keepRecentTokens: rand(60_000),
        maskProtectTokens: rand(60_000),
        ...(rand(3) === 0 ? { thresholdPercent: (20 + rand(81)) / 100 } : {}),
      };
      const once = settingsForWindow(settings, window);
      expect(settingsForWindow(once, window)).toEqual(once);
      expect(once.reserveTokens).toBeLessThanOrEqual(settings.reserveTokens);
      expect(once.keepRecentTokens).toBeLessThanOrEqual(settings.keepRecentTokens);
      expect(once.reserveTokens).toBeLessThanOrEqual(window / 4);
      const b = windowBudget(settings, window);
      expect(b.limit).toBe(compactionLimit(window, once));
      // The summary budget has a floor of 256 tokens: below that windows are too small to promise room.
      if (b.summaryBudget > 256) expect(once.keepRecentTokens + b.summaryBudget, `${window} ${JSON.stringify(settings)}`).toBeLessThanOrEqual(Math.ceil((b.limit * 2) / 3));
    }
  });

  it('the cut rule then keeps what keep-recent says: the window no longer clamps it further', () => {
    for (const window of [3_000, 8_192, 32_768]) {
      const once = settingsForWindow(s, window);
      expect(effectiveKeepRecent(once, { window })).toBe(once.keepRecentTokens);
      expect(keptRoom(once, window)).toBeGreaterThanOrEqual(once.keepRecentTokens);
    }
  });
});
