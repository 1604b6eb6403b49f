'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { Toaster } from 'sonner';
import { FlowsProvider } from '@/components/state/FlowsProvider';

export function Providers({ children }: { children: React.ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: false } },
      }),
  );
  return (
    <QueryClientProvider client={client}>
      <FlowsProvider>{children}</FlowsProvider>
      <Toaster position="bottom-left" richColors closeButton duration={6000} />
    </QueryClientProvider>
  );
}
