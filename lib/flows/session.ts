import { windowBudget, type ScaledSetting } from '@/lib/compaction/policy';
import type { ModelInfo } from '@/lib/providers/listing';
import type { CompactionSettings } from '@/lib/session/types';
import type { LiveSession } from './liveSession';
import type { FlowPorts } from './ports';
import type { RunRegistry } from './runs';
import type { TokenSync } from './tokenSync';

/** What the UI knows about a session right now: the models it resolved and the settings in force. */
export interface SessionEnv {
  chatModel?: ModelInfo;
  /** The model that writes summaries (settings, else the server's SUMMARIZER_MODEL, else the chat model); none → extractive. */
  summarizer?: ModelInfo;
  /** The compaction settings as they work with the chat model's window (sessionEnv): what every flow, the worker and the meter use. */
  settings: CompactionSettings;
  /** What the window scaled down from the settings as written, for the settings, the meter and the Compact dialog to say. */
  scaled?: readonly ScaledSetting[];
  /** The instructions in force: the session's own, else the default. Counted in the context figure and sent with every turn. */
  systemPrompt?: string;
  temperature?: number;
  maxOutputTokens?: number;
  /** The session's title as stored (auto-titling checks it). */
  title?: string;
}

/**
 * The environment of a session from the settings as the user wrote them:
 * the one place where the settings meet the chat model's window, so the
 * meter's limit, the Compact dialog, auto-compaction and the token worker
 * (which is handed `settings` with every call) all work with the same scaled
 * values (lib/compaction/policy.ts windowBudget).
 */
export function sessionEnv(env: Omit<SessionEnv, 'scaled'>): SessionEnv {
  const budget = windowBudget(env.settings, env.chatModel?.contextWindow);
  return { ...env, settings: budget.settings, ...(budget.scaled.length ? { scaled: budget.scaled } : {}) };
}

/**
 * One open session as the flows see it: its live tree, its token sync, the
 * ports, this tab's runs, and the latest environment (read at the moment a
 * flow needs it, since models and settings change while a flow runs).
 */
export interface SessionHandle {
  readonly sessionId: string;
  readonly live: LiveSession;
  readonly sync: TokenSync;
  readonly ports: FlowPorts;
  readonly runs: RunRegistry;
  env(): SessionEnv;
}
