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
  settings: CompactionSettings;
  /** The instructions in force: the session's own, else the default. Counted in the context figure and sent with every turn. */
  systemPrompt?: string;
  temperature?: number;
  maxOutputTokens?: number;
  /** The session's title as stored (auto-titling checks it). */
  title?: string;
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
