'use client';

import './models.css';
import { PlugZap } from 'lucide-react';
import { useModels } from './useModels';

/**
 * With no model reachable the app still works (import, browse, tree, timeline,
 * export, extractive compaction); this says so plainly and how to connect one.
 */
export function NoModelNotice() {
  const { data, isLoading, isError } = useModels();
  if (isLoading) return null;
  if (!isError && data && data.models.length > 0) return null;
  return (
    <section className="banner" role="status" aria-label="No model connected">
      <PlugZap aria-hidden="true" className="icon" />
      <div>
        <h2>No model is connected</h2>
        <p>
          You can still import, browse, branch, compact (with the built-in extractive summarizer), inspect the timeline and export. To chat, give the
          server a provider and restart it: put <code>OPENAI_API_KEY</code>, <code>ANTHROPIC_API_KEY</code>, <code>GOOGLE_GENERATIVE_AI_API_KEY</code> or{' '}
          <code>OPENAI_COMPATIBLE_BASE_URL</code> in <code>.env.local</code> (see <code>.env.example</code>), or run Ollama on{' '}
          <code>127.0.0.1:11434</code>, which is found automatically.
        </p>
        {isError && <p className="muted small">The model list could not be loaded from the server.</p>}
      </div>
    </section>
  );
}
