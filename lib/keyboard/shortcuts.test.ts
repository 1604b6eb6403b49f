import { describe, expect, it } from 'vitest';
import { ariaKeyShortcuts, comboLabel, isApplePlatform, matchShortcuts, SHORTCUTS, shortcutLabel, type KeyInput } from './shortcuts';

const key = (k: string, code: string, mods: Partial<Pick<KeyInput, 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>> = {}): KeyInput => ({
  key: k,
  code,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...mods,
});
const pc = { mac: false, inText: false };
const mac = { mac: true, inText: false };

describe('keyboard shortcuts', () => {
  it('takes Ctrl on Windows and Linux and ⌘ on a Mac, never the other', () => {
    expect(matchShortcuts(key('O', 'KeyO', { ctrlKey: true, shiftKey: true }), pc)).toEqual(['newSession']);
    expect(matchShortcuts(key('o', 'KeyO', { metaKey: true, shiftKey: true }), mac)).toEqual(['newSession']);
    expect(matchShortcuts(key('o', 'KeyO', { ctrlKey: true, shiftKey: true }), mac)).toEqual([]);
    expect(matchShortcuts(key('O', 'KeyO', { metaKey: true, shiftKey: true }), pc)).toEqual([]);
    expect(matchShortcuts(key('k', 'KeyK', { ctrlKey: true }), pc)).toEqual(['search']);
    // Shift or Alt added is another combination.
    expect(matchShortcuts(key('K', 'KeyK', { ctrlKey: true, shiftKey: true }), pc)).toEqual([]);
    expect(matchShortcuts(key('k', 'KeyK', { ctrlKey: true, altKey: true }), pc)).toEqual([]);
  });

  it('matches panel toggles by the physical digit key, whatever Shift makes of it', () => {
    expect(matchShortcuts(key('!', 'Digit1', { ctrlKey: true, shiftKey: true }), pc)).toEqual(['toggleTree']);
    // AZERTY: the unshifted key is "&", Shift gives "1".
    expect(matchShortcuts(key('1', 'Digit1', { ctrlKey: true, shiftKey: true }), pc)).toEqual(['toggleTree']);
    expect(matchShortcuts(key('@', 'Digit2', { metaKey: true, shiftKey: true }), mac)).toEqual(['toggleTimeline']);
    // Ctrl+1 alone is the browser's (first tab): not ours.
    expect(matchShortcuts(key('1', 'Digit1', { ctrlKey: true }), pc)).toEqual([]);
  });

  it('falls back to the physical key on a non-Latin layout', () => {
    expect(matchShortcuts(key('л', 'KeyK', { ctrlKey: true }), pc)).toEqual(['search']);
    expect(matchShortcuts(key('У', 'KeyE', { ctrlKey: true, shiftKey: true }), pc)).toEqual(['compact']);
  });

  it('lets "?" open the list only outside text fields, where it would be typed; Ctrl/⌘+/ works everywhere', () => {
    expect(matchShortcuts(key('?', 'Slash', { shiftKey: true }), pc)).toEqual(['showShortcuts']);
    expect(matchShortcuts(key('?', 'Slash', { shiftKey: true }), { mac: false, inText: true })).toEqual([]);
    expect(matchShortcuts(key('/', 'Slash', { ctrlKey: true }), { mac: false, inText: true })).toEqual(['showShortcuts']);
    expect(matchShortcuts(key('/', 'Slash', { metaKey: true }), { mac: true, inText: true })).toEqual(['showShortcuts']);
  });

  it('reads Esc as stop or close (the handler decides by what is open) and Shift+Esc as the message box', () => {
    expect(matchShortcuts(key('Escape', 'Escape'), { mac: false, inText: true })).toEqual(['stop', 'closePanel']);
    expect(matchShortcuts(key('Escape', 'Escape', { shiftKey: true }), { mac: false, inText: true })).toEqual(['focusComposer']);
  });

  it('never takes a plain typed character or Enter, so typing in the message box is untouched', () => {
    const typed = [..."abcxyz ABC 123 !@#$%^&*()-=[];',./`~"].map((c) => key(c, 'KeyA', { shiftKey: c !== c.toLowerCase() }));
    for (const k of [...typed, key('Enter', 'Enter'), key('Enter', 'Enter', { shiftKey: true }), key('Backspace', 'Backspace')])
      expect(matchShortcuts(k, { mac: false, inText: true }), k.key).toEqual([]);
  });

  it('no two shortcuts share a combination, except Esc (stop while streaming, else close)', () => {
    const seen = new Map<string, string>();
    for (const s of SHORTCUTS)
      for (const c of s.combos) {
        const k = JSON.stringify(c);
        if (seen.has(k)) expect([seen.get(k), s.id].sort()).toEqual(['closePanel', 'stop']);
        seen.set(k, s.id);
      }
  });

  it('shows combinations the way each platform writes them', () => {
    expect(shortcutLabel('newSession', false)).toBe('Ctrl+Shift+O');
    expect(shortcutLabel('newSession', true)).toBe('⌘⇧O');
    expect(shortcutLabel('focusComposer', false)).toBe('Shift+Esc');
    expect(shortcutLabel('toggleTree', true)).toBe('⌘⇧1');
    expect(comboLabel({ key: '?', outsideText: true }, false)).toBe('?');
    expect(ariaKeyShortcuts('search', true)).toBe('Meta+K');
    expect(ariaKeyShortcuts('showShortcuts', false)).toBe('? Control+/');
  });

  it('tells Apple platforms from the rest', () => {
    for (const p of ['MacIntel', 'macOS', 'iPhone', 'iPad']) expect(isApplePlatform(p), p).toBe(true);
    for (const p of ['Win32', 'Linux x86_64', 'Windows', 'Android', '']) expect(isApplePlatform(p), p).toBe(false);
  });
});
