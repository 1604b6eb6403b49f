import { z } from 'zod';
import { formatCount } from '@/lib/format/numbers';
import type { SessionMeta } from '@/lib/session/types';

/**
 * What a chat request carries besides the conversation: the instructions
 * (system prompt), the temperature and the longest reply to ask for. Each has
 * a default in Settings and may be set per session; the session's value wins.
 * An empty field means "not set": the default, or for the temperature and
 * the reply length, the provider's own.
 */

export const MAX_SYSTEM_PROMPT_CHARS = 100_000;

export const chatFieldSchemas = {
  systemPrompt: z.string().max(MAX_SYSTEM_PROMPT_CHARS),
  temperature: z.number().min(0).max(2),
  maxOutputTokens: z.number().int().positive().max(1_000_000),
};

export interface ChatSettings {
  systemPrompt?: string;
  temperature?: number;
  maxOutputTokens?: number;
}

export type SessionChatFields = Pick<SessionMeta, 'systemPrompt' | 'temperature' | 'maxOutputTokens'>;

/** A stored value (anything) as valid chat settings: fields that pass, the rest left out. */
export function readChatSettings(raw: unknown): ChatSettings {
  const obj = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const out: ChatSettings = {};
  const prompt = chatFieldSchemas.systemPrompt.safeParse(obj.systemPrompt);
  if (prompt.success && prompt.data.trim()) out.systemPrompt = prompt.data;
  const temperature = chatFieldSchemas.temperature.safeParse(obj.temperature);
  if (temperature.success) out.temperature = temperature.data;
  const max = chatFieldSchemas.maxOutputTokens.safeParse(obj.maxOutputTokens);
  if (max.success) out.maxOutputTokens = max.data;
  return out;
}

/** The session's own settings over the defaults, field by field. */
export function effectiveChatSettings(defaults: ChatSettings, session: SessionChatFields | null | undefined): ChatSettings {
  const systemPrompt = session?.systemPrompt?.trim() ? session.systemPrompt : defaults.systemPrompt;
  const temperature = session?.temperature ?? defaults.temperature;
  const maxOutputTokens = session?.maxOutputTokens ?? defaults.maxOutputTokens;
  return {
    ...(systemPrompt?.trim() ? { systemPrompt } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
  };
}

/** The chat settings as a form edits them: text, empty for "not set". */
export interface ChatForm {
  systemPrompt: string;
  temperature: string;
  maxOutputTokens: string;
}

export function toChatForm(s: ChatSettings | SessionChatFields | null | undefined): ChatForm {
  return {
    systemPrompt: s?.systemPrompt ?? '',
    temperature: s?.temperature !== undefined ? String(s.temperature) : '',
    maxOutputTokens: s?.maxOutputTokens !== undefined ? String(s.maxOutputTokens) : '',
  };
}

export type ChatFormResult = { ok: true; value: ChatSettings } | { ok: false; error: string };

/** Parses the form; says which field is wrong, in words for the form. Unset fields are left out. */
export function parseChatForm(form: ChatForm): ChatFormResult {
  const out: ChatSettings = {};
  if (form.systemPrompt.trim()) {
    if (form.systemPrompt.length > MAX_SYSTEM_PROMPT_CHARS) return { ok: false, error: `The instructions are longer than ${formatCount(MAX_SYSTEM_PROMPT_CHARS)} characters.` };
    out.systemPrompt = form.systemPrompt;
  }
  const t = form.temperature.trim().replace(',', '.');
  if (t) {
    const n = Number(t);
    if (!Number.isFinite(n) || n < 0 || n > 2) return { ok: false, error: 'Temperature must be a number from 0 to 2.' };
    out.temperature = n;
  }
  const m = form.maxOutputTokens.trim().replace(/[_\s,]/g, '');
  if (m) {
    const n = Number(m);
    if (!Number.isInteger(n) || n < 1 || n > 1_000_000) return { ok: false, error: 'Max output tokens must be a whole number from 1 to 1,000,000.' };
    out.maxOutputTokens = n;
  }
  return { ok: true, value: out };
}

/** A few words for the session header: what is set, or that the defaults apply. */
export function describeChatSettings(s: ChatSettings): string {
  const parts: string[] = [];
  if (s.systemPrompt) parts.push('instructions');
  if (s.temperature !== undefined) parts.push(`temperature ${s.temperature}`);
  if (s.maxOutputTokens !== undefined) parts.push(`max ${formatCount(s.maxOutputTokens)} tokens`);
  return parts.length ? parts.join(' · ') : 'defaults';
}
