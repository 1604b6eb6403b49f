import { withSerwist } from '@serwist/turbopack';

// Headers for every response. The Content-Security-Policy of pages is set per
// request in proxy.ts (it carries a nonce); API responses are JSON or streams and
// static assets are scripts themselves, so they need only these.
const securityHeaders = [
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
  { key: 'Referrer-Policy', value: 'no-referrer' },
  { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
  { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
];

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm test` type-checks the whole project (tsc --noEmit) as its own stage;
  // checking again inside every build only makes `npm start` slower.
  typescript: { ignoreBuildErrors: true },
  // The embedded sync database (PGlite) loads its WebAssembly and data files from its own
  // package directory at run time: bundling it would separate the code from those files.
  serverExternalPackages: ['@electric-sql/pglite'],
  turbopack: {
    resolveAlias: {
      // micromark's entity decoder has a "browser" build that calls document.createElement,
      // which does not exist in the Web Worker that renders HTML exports. The plain build
      // (a lookup table) works everywhere.
      'decode-named-character-reference': './node_modules/decode-named-character-reference/index.js',
    },
  },
  // Browsers ask for /favicon.ico on pages without a <link rel=icon> (raw JSON, say): answer with the app icon.
  async rewrites() {
    return [{ source: '/favicon.ico', destination: '/icon.svg' }];
  },
  async headers() {
    return [
      {
        source: '/:path*',
        headers: securityHeaders,
      },
      {
        // The service worker: checked for a new version on every load, and allowed nothing but this origin.
        source: '/serwist/:path*',
        headers: [
          { key: 'Cache-Control', value: 'no-cache' },
          { key: 'Content-Security-Policy', value: "default-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'" },
        ],
      },
    ];
  },
};

// Serwist builds the service worker with esbuild inside a route (app/serwist/[path]/route.ts): esbuild stays external.
export default withSerwist(nextConfig);
