import type { MetadataRoute } from 'next';

/**
 * The web app manifest (/manifest.webmanifest, linked from every page by
 * Next): what Chromium needs to offer "Install" (a name, a start URL in scope,
 * a standalone display, 192 and 512 px icons), plus a maskable icon for
 * Android's shapes. The service worker (workers/sw.ts) makes the installed
 * app open offline.
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    id: '/',
    name: 'Longctx — long conversations, compacted',
    short_name: 'Longctx',
    description: 'A local-first chat app for long LLM sessions: compaction, session trees, branch summaries, timeline, export.',
    start_url: '/',
    scope: '/',
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#2b59c3',
    categories: ['productivity', 'utilities'],
    icons: [
      { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
      { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
      { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      { src: '/icon.svg', sizes: 'any', type: 'image/svg+xml' },
    ],
  };
}
