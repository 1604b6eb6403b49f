import type { ModelsResponse } from '@/lib/providers/listing';

/** The models this app's server can reach right now, with their context windows; `refresh` skips the server's short cache. */
export async function fetchModels(refresh = false): Promise<ModelsResponse> {
  const res = await fetch(refresh ? '/api/models?refresh=1' : '/api/models', { cache: 'no-store' });
  if (!res.ok) throw new Error(`Could not list models (${res.status})`);
  return (await res.json()) as ModelsResponse;
}
