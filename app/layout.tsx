import type { Metadata, Viewport } from 'next';
import { cookies } from 'next/headers';
import { Providers } from '@/components/app/Providers';
import { THEME_COOKIE, readThemePreference, themeAttribute } from '@/lib/settings/theme';
import './globals.css';

export const metadata: Metadata = {
  title: 'Longctx — long conversations, compacted',
  description: 'A local-first chat app for long LLM sessions: compaction, session trees, branch summaries, timeline, export.',
};

// viewport-fit=cover lets the layout reach under a phone's rounded corners and home bar; the composer pads itself with the safe-area insets.
export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  viewportFit: 'cover',
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#ffffff' },
    { media: '(prefers-color-scheme: dark)', color: '#161618' },
  ],
};

export default async function RootLayout({ children }: { children: React.ReactNode }) {
  // The theme is rendered on the server from its cookie, so the first paint is in it: no script has to run first.
  const theme = readThemePreference((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" data-theme={themeAttribute(theme)}>
      <body>
        <Providers theme={theme}>{children}</Providers>
      </body>
    </html>
  );
}
