import { z } from 'zod';
import { MAX_MODEL_ID_LENGTH, parseModelId } from '@/lib/providers/modelId';
import { compactionSettingsSchema } from '@/lib/session/schema';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type SessionMeta } from '@/lib/session/types';
import { readChatSettings, type ChatSettings } from './chatSettings';

/**
 * The app's global settings: their shape, defaults, how a stored value is
 * read back and how a change is merged. Stored values come from IndexedDB,
 * written by any earlier version of the app (or edited by hand in devtools):
 * each field is validated on read and a bad one falls back to its default
 * instead of breaking every session.
 */

export type BranchLeaveDefault = 'ask' | 'switch' | 'summarize';

export interface AppSettings {
  compaction: CompactionSettings;
  /** "provider:model" used for summaries; empty means the session's chat model. */
  summarizerModel: string;
  /** Skip the "summarise the branch you leave?" question and do this instead. */
  branchLeaveDefault: BranchLeaveDefault;
  /** Instructions, temperature and reply length for sessions that set none of their own. */
  chat: ChatSettings;
  /** Context windows the user set, by qualified model id: they know their deployment (a local server's configured context). */
  contextWindows: Record<string, number>;
}

export const DEFAULT_APP_SETTINGS: AppSettings = {
  compaction: DEFAULT_COMPACTION_SETTINGS,
  summarizerModel: '',
  branchLeaveDefault: 'ask',
  chat: {},
  contextWindows: {},
};

/** The largest window anyone could mean; a typo with three zeros too many is refused. */
export const MAX_CONTEXT_WINDOW = 100_000_000;

const FIELDS = {
  summarizerModel: z.string().max(300),
  branchLeaveDefault: z.enum(['ask', 'switch', 'summarize']),
};

/** Each compaction field on its own, so one bad value does not throw away the others. */
function readCompaction(raw: unknown): CompactionSettings {
  const out: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS };
  if (!raw || typeof raw !== 'object') return out;
  const shape = compactionSettingsSchema.shape;
  for (const key of Object.keys(shape) as (keyof CompactionSettings)[]) {
    const parsed = shape[key].safeParse((raw as Record<string, unknown>)[key]);
    if (parsed.success && parsed.data !== undefined) (out as unknown as Record<string, unknown>)[key] = parsed.data;
  }
  return out;
}

/** Each entry on its own: a model id and a whole number of tokens, or it is left out. */
function readContextWindows(raw: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [id, n] of Object.entries(raw as Record<string, unknown>)) {
    if (id.length > MAX_MODEL_ID_LENGTH || !parseModelId(id)) continue;
    if (typeof n === 'number' && Number.isInteger(n) && n > 0 && n <= MAX_CONTEXT_WINDOW) out[id] = n;
  }
  return out;
}

/** A stored settings value (anything) as valid settings: known fields that pass validation, defaults for the rest. */
export function readAppSettings(raw: unknown): AppSettings {
  const obj = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const summarizerModel = FIELDS.summarizerModel.safeParse(obj.summarizerModel);
  const branchLeaveDefault = FIELDS.branchLeaveDefault.safeParse(obj.branchLeaveDefault);
  return {
    compaction: readCompaction(obj.compaction),
    summarizerModel: summarizerModel.success ? summarizerModel.data : DEFAULT_APP_SETTINGS.summarizerModel,
    branchLeaveDefault: branchLeaveDefault.success ? branchLeaveDefault.data : DEFAULT_APP_SETTINGS.branchLeaveDefault,
    chat: readChatSettings(obj.chat),
    contextWindows: readContextWindows(obj.contextWindows),
  };
}

/** Applies a change to the current settings; what the change leaves out stays as it was (`chat` and `contextWindows` are replaced whole). */
export function mergeAppSettings(current: AppSettings, patch: Partial<AppSettings>): AppSettings {
  return readAppSettings({ ...current, ...patch, compaction: { ...current.compaction, ...patch.compaction } });
}

/** Global compaction settings with the session's own overrides on top. */
export function effectiveCompactionSettings(global: CompactionSettings, session: Pick<SessionMeta, 'compaction'> | null | undefined): CompactionSettings {
  return { ...global, ...session?.compaction };
}
