import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { DEFAULT_APP_SETTINGS, effectiveCompactionSettings, mergeAppSettings, readAppSettings } from './appSettings';
import { describeChatSettings, effectiveChatSettings, parseChatForm, toChatForm } from './chatSettings';
import { parseCompactionForm, toCompactionForm } from './compactionForm';

describe('readAppSettings', () => {
  it('gives the defaults for nothing stored, or for something that is not an object', () => {
    for (const raw of [undefined, null, 42, 'x', []]) expect(readAppSettings(raw)).toEqual(DEFAULT_APP_SETTINGS);
  });

  it('keeps valid fields and replaces each invalid one by its default, field by field', () => {
    const read = readAppSettings({
      summarizerModel: 'openai:gpt-4o-mini',
      branchLeaveDefault: 'sometimes',
      compaction: { enabled: false, reserveTokens: -5, keepRecentTokens: 8000, thresholdPercent: 3, toolResultMaxChars: 'lots' },
      stray: { anything: true },
    });
    expect(read).toEqual({
      summarizerModel: 'openai:gpt-4o-mini',
      branchLeaveDefault: DEFAULT_APP_SETTINGS.branchLeaveDefault,
      chat: {},
      contextWindows: {},
      compaction: {
        ...DEFAULT_COMPACTION_SETTINGS,
        enabled: false,
        keepRecentTokens: 8000,
      },
    });
    expect(read).not.toHaveProperty('stray');
  });

  it('reads the masking settings back, off unless stored as true, and a bad protected window as the default', () => {
    expect(readAppSettings({}).compaction).toMatchObject({ maskToolOutput: false, maskProtectTokens: 20_000 });
    expect(readAppSettings({ compaction: { maskToolOutput: true, maskProtectTokens: 6000 } }).compaction).toMatchObject({ maskToolOutput: true, maskProtectTokens: 6000 });
    expect(readAppSettings({ compaction: { maskToolOutput: 'yes', maskProtectTokens: -1 } }).compaction).toMatchObject({ maskToolOutput: false, maskProtectTokens: 20_000 });
    const form = toCompactionForm({ maskToolOutput: true }, DEFAULT_COMPACTION_SETTINGS);
    expect(parseCompactionForm({ ...form, maskProtectTokens: '5000' })).toEqual({ ok: true, value: expect.objectContaining({ maskToolOutput: true, maskProtectTokens: 5000 }) });
    expect(parseCompactionForm({ ...form, maskProtectTokens: 'lots' })).toEqual({ ok: false, error: 'Protected recent tokens must be a whole number ≥ 0.' });
  });

  it('keeps an optional threshold only when it is a fraction', () => {
    expect(readAppSettings({ compaction: { thresholdPercent: 0.8 } }).compaction.thresholdPercent).toBe(0.8);
    expect(readAppSettings({ compaction: { thresholdPercent: 80 } }).compaction).not.toHaveProperty('thresholdPercent');
  });
});

describe('mergeAppSettings', () => {
  it('changes only what the patch names, compaction fields included', () => {
    const cur = readAppSettings({ summarizerModel: 'a:b', compaction: { keepRecentTokens: 9000 } });
    const next = mergeAppSettings(cur, { compaction: { ...cur.compaction, reserveTokens: 1000 } });
    expect(next.summarizerModel).toBe('a:b');
    expect(next.compaction.keepRecentTokens).toBe(9000);
    expect(next.compaction.reserveTokens).toBe(1000);
  });
});

describe('effectiveCompactionSettings', () => {
  it('puts a session override on top of the global settings', () => {
    const global = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 5000 };
    expect(effectiveCompactionSettings(global, { compaction: { reserveTokens: 10 } })).toEqual({ ...global, reserveTokens: 10 });
    expect(effectiveCompactionSettings(global, null)).toEqual(global);
  });
});

describe('the compaction form', () => {
  it('round-trips settings, the threshold shown in percent', () => {
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, thresholdPercent: 0.75 };
    const form = toCompactionForm({}, settings);
    expect(form.thresholdPercent).toBe('75');
    expect(parseCompactionForm(form)).toEqual({ ok: true, value: settings });
  });

  it('the self-check is off unless switched on, and a session can switch it off again', () => {
    expect(toCompactionForm({}, DEFAULT_COMPACTION_SETTINGS).selfCheck).toBe(false);
    const on = { ...DEFAULT_COMPACTION_SETTINGS, selfCheck: true };
    expect(toCompactionForm({}, on).selfCheck).toBe(true);
    const sessionForm = toCompactionForm({ selfCheck: false }, on);
    expect(parseCompactionForm(sessionForm)).toMatchObject({ ok: true, value: { selfCheck: false } });
    expect(readAppSettings({ compaction: { selfCheck: 'yes' } }).compaction.selfCheck).toBe(false);
    expect(readAppSettings({ compaction: { selfCheck: true } }).compaction.selfCheck).toBe(true);
  });

  it('names the field that is wrong', () => {
    const form = toCompactionForm({}, DEFAULT_COMPACTION_SETTINGS);
    expect(parseCompactionForm({ ...form, keepRecentTokens: '1.5' })).toEqual({ ok: false, error: 'Keep recent tokens must be a whole number ≥ 0.' });
    expect(parseCompactionForm({ ...form, reserveTokens: '' })).toEqual({ ok: false, error: 'Reserve tokens must be a whole number ≥ 0.' });
    expect(parseCompactionForm({ ...form, thresholdPercent: '120' })).toEqual({ ok: false, error: 'Threshold must be at most 100 %.' });
    expect(parseCompactionForm({ ...form, thresholdPercent: '' })).toMatchObject({ ok: true });
  });
});

describe('chat defaults and context windows, as stored', () => {
  it('keeps each valid field and entry, drops the rest', () => {
    const read = readAppSettings({
      chat: { systemPrompt: 'Be brief.', temperature: 3, maxOutputTokens: 1024.5 },
      contextWindows: { 'ollama:llama3.1:8b': 32768, 'compat@k3x9:mock-large': 100000, 'nonsense id': 5, 'openai:gpt-4o': -1, 'google:gemini-2.5-pro': '1M' },
    });
    expect(read.chat).toEqual({ systemPrompt: 'Be brief.' });
    expect(read.contextWindows).toEqual({ 'ollama:llama3.1:8b': 32768, 'compat@k3x9:mock-large': 100000 });
    expect(readAppSettings({ chat: 'x', contextWindows: [1, 2] })).toMatchObject({ chat: {}, contextWindows: {} });
  });
});

describe('chat settings', () => {
  it('the session’s own value wins, field by field; an empty prompt follows the default', () => {
    const defaults = { systemPrompt: 'Default voice.', temperature: 0.7 };
    expect(effectiveChatSettings(defaults, { systemPrompt: 'Session voice.', maxOutputTokens: 300 })).toEqual({ systemPrompt: 'Session voice.', temperature: 0.7, maxOutputTokens: 300 });
    expect(effectiveChatSettings(defaults, { systemPrompt: '  ', temperature: 0 })).toEqual({ systemPrompt: 'Default voice.', temperature: 0 });
    expect(effectiveChatSettings({}, null)).toEqual({});
  });

  it('the form: empty fields are not set, bad ones are named', () => {
    expect(parseChatForm({ systemPrompt: ' ', temperature: '', maxOutputTokens: '' })).toEqual({ ok: true, value: {} });
    expect(parseChatForm({ systemPrompt: 'Hi', temperature: '0,5', maxOutputTokens: '4,096' })).toEqual({ ok: true, value: { systemPrompt: 'Hi', temperature: 0.5, maxOutputTokens: 4096 } });
    expect(parseChatForm({ systemPrompt: '', temperature: '2.5', maxOutputTokens: '' })).toEqual({ ok: false, error: 'Temperature must be a number from 0 to 2.' });
    expect(parseChatForm({ systemPrompt: '', temperature: '', maxOutputTokens: '0' })).toMatchObject({ ok: false, error: expect.stringMatching(/^Max output tokens/) });
    expect(toChatForm({ temperature: 0, maxOutputTokens: 10 })).toEqual({ systemPrompt: '', temperature: '0', maxOutputTokens: '10' });
  });

  it('says in a few words what is set', () => {
    expect(describeChatSettings({})).toBe('defaults');
    expect(describeChatSettings({ systemPrompt: 'x', temperature: 0.2, maxOutputTokens: 4096 })).toBe('instructions · temperature 0.2 · max 4,096 tokens');
  });
});
