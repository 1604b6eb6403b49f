import type { ModelInfo, ModelsResponse } from '@/lib/providers/listing';

/** The model a session uses: its own choice if still available, else the server default, else the first one. */
export function resolveModel(data: ModelsResponse | undefined, preferred: string | undefined): ModelInfo | undefined {
  if (!data || data.models.length === 0) return undefined;
  return data.models.find((m) => m.id === preferred) ?? data.models.find((m) => m.id === data.defaultModel) ?? data.models[0];
}

/** The model that writes summaries: the one chosen in Settings, else the server's SUMMARIZER_MODEL, else the chat model. */
export function chooseSummarizer(data: ModelsResponse | undefined, chosen: string, chatModel: ModelInfo | undefined): ModelInfo | undefined {
  const wanted = chosen || data?.summarizerModel;
  return data?.models.find((m) => m.id === wanted) ?? chatModel;
}
