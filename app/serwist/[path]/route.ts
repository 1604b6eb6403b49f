import { createSerwistRoute } from '@serwist/turbopack';

/**
 * Serves the service worker (/serwist/sw.js), built at `next build` from
 * workers/sw.ts with the list of the build's static files to precache.
 * Serwist's Turbopack integration: a route, since Turbopack takes no plugins.
 */
export const { dynamic, dynamicParams, revalidate, generateStaticParams, GET } = createSerwistRoute({
  swSrc: 'workers/sw.ts',
  // esbuild's native binary is installed already (tsx and vitest use it); the default is its WebAssembly build.
  useNativeEsbuild: true,
  // Everything the app may load offline: scripts (the tokenizer's table chunk is ~2 MB), styles, the
  // app's own icons. Source maps and the workers' TypeScript sources Turbopack copies along are not loaded.
  globPatterns: ['.next/static/**/*.{js,css,svg,png,ico,webmanifest,woff2}', 'public/**/*.{png,svg,ico}'],
  maximumFileSizeToCacheInBytes: 8 * 1024 * 1024,
  // A classic script, not a module: registered without { type: 'module' }, it runs in every browser with service workers.
  esbuildOptions: { format: 'iife' },
});
