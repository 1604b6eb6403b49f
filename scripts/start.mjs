// `npm start`: build when sources changed since the last build, then serve the app.
// Binds to 127.0.0.1 by default: sessions and typed API keys live in this browser,
// and the server proxies model calls, so it is not exposed to the network unless HOST says so.
import { bin, buildIfStale, run } from './lib.mjs';

const port = process.env.PORT || '3000';
const host = process.env.HOST || '127.0.0.1';

const code = await buildIfStale();
if (code !== 0) process.exit(code);
console.log(`\n  Longctx is starting at http://${host === '0.0.0.0' ? 'localhost' : host}:${port}\n`);
process.exit(await run(bin('next'), ['start', '-p', port, '-H', host]));
