'use client';

import './models.css';
import { PlugZap } from 'lucide-react';
import { useUi } from '@/components/state/uiStore';
import { useModels } from './useModels';

/**
 * With no model reachable the app still works (import, browse, tree, timeline,
 * export, extractive compaction); this says so plainly and how to connect one.
 */
export function NoModelNotice() {
  const { data, isLoading, isError } = useModels();
  const openProviders = useUi((s) => s.setProvidersOpen);
  if (isLoading) return null;
  if (!isError && data && data.models.length > 0) return null;
  return (
    <section className="banner" role="status" aria-label="No model connected">
      <PlugZap aria-hidden="true" className="icon" />
      <div>
        <h2>No model is connected</h2>
        <p>
          You can still import, browse, branch, compact (with the built-in extractive summarizer), inspect the timeline and export. To chat, add a provider:
          an OpenAI, Anthropic or Google key, an OpenAI-compatible server, or Ollama. An Ollama running on this machine at <code>127.0.0.1:11434</code> is
          found automatically.
        </p>
        <button type="button" className="btn primary" onClick={() => openProviders(true)}>
          Connect a model
        </button>
        {isError && <p className="muted small">The model list could not be loaded from the server.</p>}
      </div>
    </section>
  );
}
