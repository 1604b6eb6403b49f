/**
 * The app's keyboard shortcuts: one table that the key handler matches and
 * the "Keyboard shortcuts" dialog lists, so the two cannot disagree.
 *
 * "Mod" is ⌘ on a Mac and Ctrl elsewhere. Combinations were picked so none is
 * a browser's own that a page may not take (Ctrl/⌘+N, T, W, Shift+T, Shift+N…)
 * and none types a character in the message box: a plain key works only when
 * no text field has focus ("?"), and Esc stops a reply only while one streams.
 * Ctrl/⌘+Shift+O (new chat), Ctrl/⌘+K (search) and Shift+Esc (message box)
 * follow what other chat apps taught people. Panels take Ctrl/⌘+Shift and
 * their position in the header (1 = Tree, 2 = Timeline), matched by the
 * physical key, so a layout where Shift+1 is "!" or "1" works the same.
 */

export type ShortcutId = 'newSession' | 'search' | 'focusComposer' | 'stop' | 'toggleTree' | 'toggleTimeline' | 'compact' | 'closePanel' | 'showShortcuts';

export interface KeyCombo {
  /** KeyboardEvent.key, lower-cased for letters. */
  key?: string;
  /** KeyboardEvent.code, for keys whose character depends on the layout and Shift (digits). */
  code?: string;
  /** Ctrl, or ⌘ on a Mac. */
  mod?: boolean;
  shift?: boolean;
  /** A plain key: only when no text field has focus, since there it types. */
  outsideText?: boolean;
}

export interface Shortcut {
  id: ShortcutId;
  /** What it does, as the dialog lists it. */
  label: string;
  combos: KeyCombo[];
  /** When it applies, if not always. */
  note?: string;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { id: 'newSession', label: 'New session', combos: [{ key: 'o', mod: true, shift: true }] },
  { id: 'search', label: 'Search messages', combos: [{ key: 'k', mod: true }] },
  { id: 'focusComposer', label: 'Focus the message box', combos: [{ key: 'Escape', shift: true }] },
  { id: 'stop', label: 'Stop the reply', combos: [{ key: 'Escape' }], note: 'while a reply is streaming' },
  { id: 'toggleTree', label: 'Show or hide the Tree', combos: [{ code: 'Digit1', mod: true, shift: true }] },
  { id: 'toggleTimeline', label: 'Show or hide the Timeline', combos: [{ code: 'Digit2', mod: true, shift: true }] },
  { id: 'compact', label: 'Compact the session', combos: [{ key: 'e', mod: true, shift: true }] },
  { id: 'closePanel', label: 'Close the panel or dialog', combos: [{ key: 'Escape' }], note: 'focus goes back where it was' },
  { id: 'showShortcuts', label: 'Keyboard shortcuts', combos: [{ key: '?', outsideText: true }, { key: '/', mod: true }] },
];

/** The part of a KeyboardEvent the matcher reads. */
export interface KeyInput {
  key: string;
  code: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

/** True for Apple platforms, from navigator.userAgentData.platform or navigator.platform. */
export function isApplePlatform(platform: string): boolean {
  return /mac|iphone|ipad|ipod/i.test(platform);
}

function matches(e: KeyInput, c: KeyCombo, mac: boolean, inText: boolean): boolean {
  if (e.altKey) return false;
  const mod = mac ? e.metaKey : e.ctrlKey;
  const otherMod = mac ? e.ctrlKey : e.metaKey;
  if (otherMod || mod !== !!c.mod) return false;
  if (c.outsideText && inText) return false;
  if (c.code) return e.code === c.code && e.shiftKey === !!c.shift;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  // "?" is Shift+/ on most layouts and a key of its own on others: the character is what counts.
  if (c.key === '?') return key === '?';
  if (e.shiftKey !== !!c.shift) return false;
  if (key === c.key) return true;
  // A non-Latin layout (Cyrillic, Greek…) reports its own letter: fall back to the physical key.
  return c.key !== undefined && /^[a-z]$/.test(c.key) && !/^[a-z]$/.test(key) && e.code === `Key${c.key.toUpperCase()}`;
}

/**
 * The shortcuts a key press means, in table order (Esc is both "stop" and
 * "close": the handler decides by what is on screen). `inText` is whether
 * focus is in a text field.
 */
export function matchShortcuts(e: KeyInput, opts: { mac: boolean; inText: boolean }): ShortcutId[] {
  return SHORTCUTS.filter((s) => s.combos.some((c) => matches(e, c, opts.mac, opts.inText))).map((s) => s.id);
}

/** The keys of a combination as shown to the user, one string per key cap. */
export function comboKeys(c: KeyCombo, mac: boolean): string[] {
  const keys: string[] = [];
  if (c.mod) keys.push(mac ? '⌘' : 'Ctrl');
  if (c.shift) keys.push(mac ? '⇧' : 'Shift');
  const main = c.code ? c.code.replace(/^Digit|^Key/, '') : c.key === 'Escape' ? 'Esc' : (c.key ?? '');
  keys.push(main.length === 1 ? main.toUpperCase() : main);
  return keys;
}

/** A combination as one accessible string, e.g. "Ctrl+Shift+O" or "⌘⇧O". */
export function comboLabel(c: KeyCombo, mac: boolean): string {
  return comboKeys(c, mac).join(mac ? '' : '+');
}

/** The first combination of a shortcut as text, for button tooltips and aria-keyshortcuts. */
export function shortcutLabel(id: ShortcutId, mac: boolean): string {
  const s = SHORTCUTS.find((x) => x.id === id)!;
  return comboLabel(s.combos[0]!, mac);
}

/** The aria-keyshortcuts value of a shortcut (ARIA names: Control, Meta, Shift). */
export function ariaKeyShortcuts(id: ShortcutId, mac: boolean): string {
  const s = SHORTCUTS.find((x) => x.id === id)!;
  return s.combos
    .map((c) => {
      const parts: string[] = [];
      if (c.mod) parts.push(mac ? 'Meta' : 'Control');
      if (c.shift) parts.push('Shift');
      parts.push(c.code ? c.code.replace(/^Digit|^Key/, '') : c.key === '?' ? '?' : c.key!.length === 1 ? c.key!.toUpperCase() : c.key!);
      return parts.join('+');
    })
    .join(' ');
}
