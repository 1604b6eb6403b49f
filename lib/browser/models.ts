import type { ModelsResponse } from '@/lib/providers/listing';

/** The models this app's server can reach right now, with their context windows. */
export async function fetchModels(): Promise<ModelsResponse> {
  const res = await fetch('/api/models', { cache: 'no-store' });
  if (!res.ok) throw new Error(`Could not list models (${res.status})`);
  return (await res.json()) as ModelsResponse;
}
