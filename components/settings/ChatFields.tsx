'use client';

import type { ChatForm } from '@/lib/settings/chatSettings';

/**
 * Instructions, temperature and longest reply: the defaults in Settings and a
 * session's own in its settings. `placeholders` show what an empty field
 * falls back to.
 */
export function ChatFields({ form, onChange, legend, placeholders }: { form: ChatForm; onChange: (f: ChatForm) => void; legend: string; placeholders?: Partial<ChatForm> }) {
  const set = (k: keyof ChatForm) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onChange({ ...form, [k]: e.target.value });
  return (
    <fieldset className="settings-group">
      <legend>{legend}</legend>
      <label className="field">
        <span>Instructions (system prompt)</span>
        <textarea rows={4} value={form.systemPrompt} placeholder={placeholders?.systemPrompt} onChange={set('systemPrompt')} />
      </label>
      <label className="field">
        <span>Temperature (0–2; empty: {placeholders?.temperature ? placeholders.temperature : 'the provider’s default'})</span>
        <input type="number" min={0} max={2} step={0.1} inputMode="decimal" value={form.temperature} onChange={set('temperature')} />
      </label>
      <label className="field">
        <span>Max output tokens (empty: {placeholders?.maxOutputTokens ? placeholders.maxOutputTokens : 'the provider’s default'})</span>
        <input type="number" min={1} step={1} inputMode="numeric" value={form.maxOutputTokens} onChange={set('maxOutputTokens')} />
      </label>
    </fieldset>
  );
}
