'use client';

import { useQuery } from '@tanstack/react-query';
import { fetchModels } from '@/lib/browser/models';

/** Models the server can reach right now, with their context windows. */
export function useModels() {
  return useQuery({ queryKey: ['models'], queryFn: fetchModels, staleTime: 60_000 });
}
