/**
 * Node entry of the token worker, for the bench and tests: the same API over
 * comlink's Node adapter on a worker_threads port, so measurements include
 * real message passing. Start it with `execArgv: ['--import', 'tsx']`.
 */
import { parentPort } from 'node:worker_threads';
import { expose } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import { createTokensService } from '@/lib/sessionTokens/service';

if (!parentPort) throw new Error('tokens.node-worker must run in a worker thread');
expose(createTokensService(), nodeEndpoint(parentPort));
