'use client';

import { useQueries, useQuery, useQueryClient, type UseQueryResult } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { fetchModels } from '@/lib/browser/models';
import { watchBrowserProviders } from '@/lib/db';
import { mergeModels } from '@/lib/flows/providers';
import type { BrowserProvider } from '@/lib/providers/browserProviders';
import type { ProviderListingResponse } from '@/lib/providers/listing';
import { useFlows } from '@/components/state/FlowsProvider';
import { useAppSettings, useWatched } from '@/components/state/hooks';

const SERVER_KEY = ['models'] as const;
const providerKey = (id: string) => ['provider', id] as const;

/** The server's own providers and their models. */
function useServerModels() {
  return useQuery({ queryKey: SERVER_KEY, queryFn: () => fetchModels(), staleTime: 60_000 });
}

/** The providers entered in this browser, live (another tab adding one shows here too); undefined until read. */
export function useBrowserProviders(): BrowserProvider[] | undefined {
  return useWatched<BrowserProvider[] | undefined>(watchBrowserProviders, [], undefined);
}

/** Stable identity while the listings do not change, so what depends on them does not recompute every render. */
function byId(results: UseQueryResult<ProviderListingResponse>[]): ProviderListingResponse[] {
  return results.flatMap((r) => (r.data ? [r.data] : []));
}

/** Each browser-entered provider's state and models, asked through the app's server when it is added and then once a minute at most. */
export function useProviderListings(providers: readonly BrowserProvider[]): ProviderListingResponse[] {
  const flows = useFlows();
  return useQueries({
    queries: providers.map((p) => ({ queryKey: providerKey(p.id), queryFn: () => flows.listProvider(p), staleTime: 60_000 })),
    combine: byId,
  });
}

/** Asks every provider again, the server's (past its cache) and this browser's. */
export function useRecheckProviders() {
  const client = useQueryClient();
  return useCallback(
    async (id?: string) => {
      if (id) return client.refetchQueries({ queryKey: providerKey(id) });
      await Promise.all([client.fetchQuery({ queryKey: SERVER_KEY, queryFn: () => fetchModels(true), staleTime: 0 }), client.refetchQueries({ queryKey: ['provider'] })]);
    },
    [client],
  );
}

/**
 * Every model the picker offers: the server's providers' and this browser's,
 * with the context windows the user set. A provider added in Settings shows
 * up here as soon as its listing arrives, without a reload.
 */
export function useModels() {
  const server = useServerModels();
  const providers = useBrowserProviders();
  const listings = useProviderListings(providers ?? []);
  const { contextWindows } = useAppSettings();
  const data = useMemo(() => mergeModels(server.data, listings, contextWindows), [server.data, listings, contextWindows]);
  return { data, isLoading: server.isLoading || providers === undefined, isError: server.isError && !data?.models.length };
}
