import type { Metadata, Viewport } from 'next';
import { Providers } from '@/components/app/Providers';
import './globals.css';

export const metadata: Metadata = {
  title: 'Longctx — long conversations, compacted',
  description: 'A local-first chat app for long LLM sessions: compaction, session trees, branch summaries, timeline, export.',
};

export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
