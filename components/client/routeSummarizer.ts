'use client';

import type { TextSummarizer } from '@/lib/compaction/summarizer';
import { streamFromRoute } from './routeStream';

/** The app's summarizer: streams through /api/summarize, which picks the provider on the server. */
export function routeSummarizer(summarizerModel: string, chatModel?: string): TextSummarizer {
  return {
    info: { kind: 'model', model: summarizerModel },
    async complete(req, opts) {
      let seen = '';
      const res = await streamFromRoute(
        '/api/summarize',
        { summarizerModel, model: chatModel, system: req.system, prompt: req.prompt, maxOutputTokens: req.maxOutputTokens },
        {
          signal: opts.signal ?? new AbortController().signal,
          onText: (full) => {
            opts.onDelta?.(full.slice(seen.length));
            seen = full;
          },
        },
      );
      // A failed or cut-off summary must not become an entry: the caller appends only on success.
      if (res.error) throw new Error(`The summarizer failed: ${res.error.message}`);
      if (!res.text.trim()) throw new Error('The summarizer returned an empty summary.');
      return { text: res.text, ...(res.usage ? { usage: res.usage } : {}) };
    },
  };
}
