// Security headers live here so that every route, static or dynamic, carries them.
// The CSP allows inline styles (React style props) and 'unsafe-inline' scripts only in dev,
// where Next's hot reloader needs eval; production scripts come from 'self' only.
const isDev = process.env.NODE_ENV !== 'production';

const csp = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${isDev ? " 'unsafe-eval'" : ''}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "form-action 'self'",
  "base-uri 'self'",
  "object-src 'none'",
].join('; ');

/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `npm test` type-checks the whole project (tsc --noEmit) as its own stage;
  // checking again inside every build only makes `npm start` slower.
  typescript: { ignoreBuildErrors: true },
  turbopack: {
    resolveAlias: {
      // micromark's entity decoder has a "browser" build that calls document.createElement,
      // which does not exist in the Web Worker that renders HTML exports. The plain build
      // (a lookup table) works everywhere.
      'decode-named-character-reference': './node_modules/decode-named-character-reference/index.js',
    },
  },
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          { key: 'Content-Security-Policy', value: csp },
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'no-referrer' },
          { key: 'Permissions-Policy', value: 'camera=(), microphone=(), geolocation=()' },
        ],
      },
    ];
  },
};

export default nextConfig;
