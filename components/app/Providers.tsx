'use client';

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { useState } from 'react';
import { Toaster } from 'sonner';
import type { ThemePreference } from '@/lib/settings/theme';
import { FlowsProvider } from '@/components/state/FlowsProvider';
import { ThemeProvider, useTheme } from '@/components/state/ThemeProvider';
import { NARROW_QUERY, useMediaQuery } from '@/components/state/useMediaQuery';

/**
 * Toasts in the theme. On a phone they sit at the top, below the two-row top
 * bar: at the bottom they would cover the composer and its Send button, at the
 * very top the header's buttons.
 */
function ThemedToaster() {
  const { preference } = useTheme();
  const narrow = useMediaQuery(NARROW_QUERY);
  // Sonner's own colours (richColors) fall short of 4.5:1 on their tints: the app's surface and text colours instead.
  return (
    <Toaster
      position={narrow ? 'top-center' : 'bottom-left'}
      mobileOffset={{ top: 112 }}
      theme={preference}
      closeButton
      duration={6000}
      style={{ '--normal-bg': 'var(--surface)', '--normal-text': 'var(--text)', '--normal-border': 'var(--border-strong)' } as React.CSSProperties}
    />
  );
}

export function Providers({ theme, children }: { theme: ThemePreference; children: React.ReactNode }) {
  const [client] = useState(
    () =>
      new QueryClient({
        defaultOptions: { queries: { staleTime: 30_000, retry: 1, refetchOnWindowFocus: false } },
      }),
  );
  return (
    <ThemeProvider initial={theme}>
      <QueryClientProvider client={client}>
        <FlowsProvider>{children}</FlowsProvider>
        <ThemedToaster />
      </QueryClientProvider>
    </ThemeProvider>
  );
}
