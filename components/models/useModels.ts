'use client';

import { useQuery } from '@tanstack/react-query';
import type { ModelsResponse, ModelInfo } from '@/lib/providers/listing';

async function fetchModels(): Promise<ModelsResponse> {
  const res = await fetch('/api/models', { cache: 'no-store' });
  if (!res.ok) throw new Error(`Could not list models (${res.status})`);
  return (await res.json()) as ModelsResponse;
}

/** Models the server can reach right now, with their context windows. */
export function useModels() {
  return useQuery({ queryKey: ['models'], queryFn: fetchModels, staleTime: 60_000 });
}

/** The model a session uses: its own choice if still available, else the server default, else the first one. */
export function resolveModel(data: ModelsResponse | undefined, preferred: string | undefined): ModelInfo | undefined {
  if (!data || data.models.length === 0) return undefined;
  return (
    data.models.find((m) => m.id === preferred) ??
    data.models.find((m) => m.id === data.defaultModel) ??
    data.models[0]
  );
}
