import { errorMessage } from '@/lib/errors';
import { formatCount } from '@/lib/format/numbers';
import { MAX_CONTEXT_WINDOW } from '@/lib/settings/appSettings';
import type { ChatSettings } from '@/lib/settings/chatSettings';
import type { FlowPorts } from './ports';
import type { SessionHandle } from './session';

/**
 * Stores the session's own chat settings. A field left out is cleared, so
 * the session follows the default for it again. Resolves false (and says
 * why) when storage fails; the form keeps what was typed.
 */
export async function saveSessionChatSettings(s: SessionHandle, settings: ChatSettings): Promise<boolean> {
  try {
    await s.ports.store.updateSession(s.sessionId, {
      systemPrompt: settings.systemPrompt,
      temperature: settings.temperature,
      maxOutputTokens: settings.maxOutputTokens,
    });
    return true;
  } catch (err) {
    s.ports.notify.error(errorMessage(err));
    return false;
  }
}

/**
 * The user's own context window for a model, used by the meter and by
 * compaction from the next figure on; null removes it. Resolves false (and
 * says why) for a value that cannot be a window or when storage fails.
 */
export async function setContextWindow(ports: FlowPorts, modelId: string, tokens: number | null): Promise<boolean> {
  if (tokens !== null && (!Number.isInteger(tokens) || tokens < 256 || tokens > MAX_CONTEXT_WINDOW)) {
    ports.notify.error(`A context window is a whole number of tokens from 256 to ${formatCount(MAX_CONTEXT_WINDOW)}.`);
    return false;
  }
  try {
    const { contextWindows } = await ports.store.loadAppSettings();
    const next = { ...contextWindows };
    if (tokens === null) delete next[modelId];
    else next[modelId] = tokens;
    await ports.store.saveAppSettings({ contextWindows: next });
    return true;
  } catch (err) {
    ports.notify.error(errorMessage(err));
    return false;
  }
}
