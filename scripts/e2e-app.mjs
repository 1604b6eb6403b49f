// The app server for end-to-end tests: the production build (rebuilt when stale) on PORT.
import { bin, buildIfStale, run } from './lib.mjs';

const code = await buildIfStale();
if (code !== 0) process.exit(code);
process.exit(await run(bin('next'), ['start', '-p', process.env.PORT ?? '3100', '-H', '127.0.0.1']));
