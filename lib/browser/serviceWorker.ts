/**
 * Registers the service worker (workers/sw.ts, served by Serwist's route at
 * /serwist/sw.js) once the page has loaded, so its precaching does not compete
 * with the first load. Production builds only: in development it would serve
 * yesterday's code. A browser without service workers, or one that refuses
 * (private modes), gets the app without offline support, nothing else changes.
 */
export const SERVICE_WORKER_URL = '/serwist/sw.js';

export function registerServiceWorker(): void {
  if (process.env.NODE_ENV !== 'production' || typeof navigator === 'undefined' || !('serviceWorker' in navigator)) return;
  const register = () =>
    navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: '/' }).catch((err: unknown) => {
      console.warn('Offline support is off: the service worker could not be registered.', err);
    });
  if (document.readyState === 'complete') void register();
  else window.addEventListener('load', () => void register(), { once: true });
}
