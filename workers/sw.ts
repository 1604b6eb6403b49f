/// <reference lib="webworker" />
/**
 * The service worker: the app opens, reads, searches, exports and compacts
 * (extractively) with no network. Built by Serwist's route
 * (app/serwist/[path]/route.ts), which bundles this file and injects the
 * build's static files into `__SW_MANIFEST`.
 *
 * - Every static file of the build (scripts, the worker chunks, styles, the
 *   icons) is precached at install, so parts loaded only later (the export
 *   renderer, the tokenizer tables) are there offline too.
 * - The page itself is network-first: online, every load gets fresh HTML and
 *   a fresh CSP nonce from the server. Offline, the last page stored is served
 *   with the headers it came with: its Content-Security-Policy names the nonce
 *   its own scripts carry, so the policy still holds and still lets exactly
 *   those scripts run. The HTML holds no user data (sessions are rendered from
 *   IndexedDB), so an old nonce shows an attacker nothing it could use.
 * - /api is never cached: model calls need the network, and the app says so.
 */
import { CacheableResponsePlugin, NetworkFirst, Serwist, StaleWhileRevalidate, type PrecacheEntry, type SerwistGlobalConfig, type SerwistPlugin } from 'serwist';

declare global {
  interface WorkerGlobalScope extends SerwistGlobalConfig {
    __SW_MANIFEST: (PrecacheEntry | string)[] | undefined;
  }
}

declare const self: ServiceWorkerGlobalScope;

const SHELL_CACHE = 'longctx-shell';
const SHELL_URL = '/';

const shell = new NetworkFirst({
  cacheName: SHELL_CACHE,
  // A server that does not answer in time is treated as offline: the stored page opens.
  networkTimeoutSeconds: 5,
  // Next varies pages on its router headers; a navigation and the install's fetch are the same page.
  matchOptions: { ignoreVary: true },
  plugins: [new CacheableResponsePlugin({ statuses: [200] })],
});

/**
 * A worker takes its address from the response to its script, and Turbopack's
 * worker bootstrap reads its parameters from that address's #fragment. A
 * response read from a cache carries the URL without the fragment, so worker
 * scripts are handed over as new responses, which leave the request's URL
 * (fragment included) in place.
 */
const keepWorkerAddress: SerwistPlugin = {
  handlerWillRespond: async ({ request, response }) =>
    request.destination === 'worker' ? new Response(response.body, { status: response.status, statusText: response.statusText, headers: response.headers }) : response,
};

const serwist = new Serwist({
  precacheEntries: self.__SW_MANIFEST,
  precacheOptions: { cleanupOutdatedCaches: true, plugins: [keepWorkerAddress] },
  skipWaiting: true,
  clientsClaim: true,
  runtimeCaching: [
    {
      matcher: ({ request, url, sameOrigin }) => sameOrigin && request.mode === 'navigate' && url.pathname === SHELL_URL,
      handler: shell,
    },
    {
      // Files the build does not list (the manifest and icons Next serves from app/): kept, refreshed in the background.
      matcher: ({ url, sameOrigin }) => sameOrigin && /^\/(manifest\.webmanifest|icon\.svg|favicon\.ico)$/.test(url.pathname),
      handler: new StaleWhileRevalidate({ cacheName: 'longctx-meta', plugins: [new CacheableResponsePlugin({ statuses: [200] })] }),
    },
  ],
});

/** Fetches the page and keeps it for offline use; `onlyIfMissing` leaves a stored one alone. */
async function storeShell(onlyIfMissing: boolean): Promise<void> {
  try {
    const cache = await caches.open(SHELL_CACHE);
    if (onlyIfMissing && (await cache.match(SHELL_URL, { ignoreVary: true }))) return;
    const response = await fetch(SHELL_URL, { cache: 'no-store', credentials: 'same-origin' });
    // Redirected means not signed in (an exposed server sends / to /signin): that page is not the app to open offline.
    if (response.ok && !response.redirected) await cache.put(SHELL_URL, response);
  } catch {
    // Offline: the first online load stores the page instead.
  }
}

// The page that registered this worker was loaded before it existed: store it now, so the next load works offline.
self.addEventListener('install', (event) => event.waitUntil(storeShell(false)));
// Registered from the sign-in page, the worker found nothing to store at install; by the time it takes over
// (precaching takes a while) the user has usually signed in, and the page the sign-in led to was loaded without it.
self.addEventListener('activate', (event) => event.waitUntil(storeShell(true)));

serwist.addEventListeners();
