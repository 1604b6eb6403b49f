/**
 * How test servers and logs tell a summarisation call from a chat turn. The
 * compaction prompts (lib/compaction) describe the model as a summariser; the
 * mock LLM matches the same stem, so any wording containing "summar"
 * (summarise, summarize, summary) is recognised.
 */
export const SUMMARIZER_MARKER = 'summar';

export function looksLikeSummarizerPrompt(system: string | undefined): boolean {
  return !!system && system.toLowerCase().includes(SUMMARIZER_MARKER);
}
