import { NextResponse, type NextRequest } from 'next/server';

/**
 * A per-request nonce Content Security Policy for pages: scripts run only if
 * they carry this request's nonce (Next.js stamps its own), or were loaded by
 * such a script ('strict-dynamic'). Model output and imported transcripts are
 * rendered as sanitized markdown anyway; this is the second wall, so an
 * injection that slipped through still could not run. Styles keep
 * 'unsafe-inline' because React style attributes cannot carry a nonce.
 */
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.randomUUID()).toString('base64');
  const dev = process.env.NODE_ENV === 'development';
  const csp = [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ''}`,
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
  const headers = new Headers(request.headers);
  headers.set('x-nonce', nonce);
  headers.set('Content-Security-Policy', csp);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', csp);
  return response;
}

// Prefetches are not skipped: a prefetched page (next/link, or the browser's
// own <link rel=prefetch> / speculation rules) is the page that gets shown,
// and a response without the policy would be a page without the second wall.
// Skipped: static files, the web app manifest and icons, and the service
// worker, which has a policy of its own (next.config.mjs) since a worker's
// script is governed by the policy it is served with.
export const config = {
  matcher: ['/((?!api|_next/static|_next/image|icon.svg|favicon.ico|apple-icon.png|manifest.webmanifest|icons/|serwist/).*)'],
};
