import { cleanTitle, TITLE_MAX_OUTPUT_TOKENS, TITLE_SYSTEM, titlePrompt } from '@/lib/chat/title';
import type { SessionHandle } from './session';

/**
 * After the first reply of a new session: asks the chat model for a short
 * title and puts it in place of the word title the session got from its
 * first prompt (`provisional`), unless the title is no longer that one (the
 * user renamed the session meanwhile, in any tab). Quiet on failure: the
 * word title is a fine title, and nothing the user asked for went wrong.
 */
export async function autoTitle(s: SessionHandle, provisional: string, userText: string, replyText: string): Promise<void> {
  const model = s.env().chatModel?.id;
  if (!model || !replyText.trim()) return;
  try {
    const raw = await s.ports.transport.completeText({ model, system: TITLE_SYSTEM, prompt: titlePrompt(userText, replyText), maxOutputTokens: TITLE_MAX_OUTPUT_TOKENS });
    const title = cleanTitle(raw);
    if (title && title !== provisional) await s.ports.store.retitleSession(s.sessionId, provisional, title);
  } catch {
    // The model, the network or storage failed: the word title stays.
  }
}
