import { config } from 'zod';
import { registerServiceWorker } from '@/lib/browser/serviceWorker';

// Runs in the browser before the app's own modules (Next.js loads this file
// first). zod compiles object parsers with `new Function` unless told not to,
// and merely probing whether it may do so is an eval that the page's CSP
// (no 'unsafe-eval') blocks and reports as a violation on every load. The
// interpreted parsers are plenty fast for our payloads. This must run before
// any z.object() is built, which happens when schema modules are evaluated.
config({ jitless: true });

// Offline support and installability (after the page has loaded).
registerServiceWorker();
