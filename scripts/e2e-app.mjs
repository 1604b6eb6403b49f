// The app server for end-to-end tests: the production build (rebuilt when stale) on PORT.
// A signal stops `next start` too (run() passes it on), and so does the test runner dying
// outright: a server left behind would hold the port and the embedded database's lock.
import { bin, buildIfStale, run, stopWithParent } from './lib.mjs';

stopWithParent();
const code = await buildIfStale();
if (code !== 0) process.exit(code);
process.exit(await run(bin('next'), ['start', '-p', process.env.PORT ?? '3100', '-H', '127.0.0.1']));
