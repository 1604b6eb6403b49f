import { describe, expect, it } from 'vitest';
import { readThemePreference, themeAttribute, themeCookie, themeFromCookies } from './theme';

describe('theme preference', () => {
  it('reads the three known values and treats anything else as system', () => {
    expect(readThemePreference('dark')).toBe('dark');
    expect(readThemePreference('light')).toBe('light');
    expect(readThemePreference('system')).toBe('system');
    for (const bad of ['Dark', '', 'dark;', null, undefined, 1, {}]) expect(readThemePreference(bad)).toBe('system');
  });

  it('finds its cookie among others, and ignores look-alike names', () => {
    expect(themeFromCookies('a=1; longctx-theme=dark; b=2')).toBe('dark');
    expect(themeFromCookies('longctx-theme=light')).toBe('light');
    expect(themeFromCookies('xlongctx-theme=dark; other=light')).toBe('system');
    expect(themeFromCookies('longctx-theme=<script>')).toBe('system');
    expect(themeFromCookies('')).toBe('system');
    expect(themeFromCookies(undefined)).toBe('system');
  });

  it('writes a cookie that reads back as the same preference', () => {
    for (const pref of ['system', 'light', 'dark'] as const) expect(themeFromCookies(themeCookie(pref))).toBe(pref);
  });

  it('pins the attribute only for an explicit choice', () => {
    expect(themeAttribute('system')).toBeUndefined();
    expect(themeAttribute('dark')).toBe('dark');
  });
});
