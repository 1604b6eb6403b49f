import { MessageChannel, Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { expose, wrap, type Remote } from 'comlink';
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { TreeBuilder } from '@/lib/testing/builder';
import { generateSession } from '@/lib/testing/generate';
import { countEntriesInBatches } from '@/lib/tokens/countBatches';
import { createTokensService, type TokensService } from '@/lib/sessionTokens/service';

const clone = <T>(x: T): T => structuredClone(x);

describe('tokens API over comlink in Node', () => {
  const channel = new MessageChannel();
  expose(createTokensService(), nodeEndpoint(channel.port1));
  const remote: Remote<TokensService> = wrap<TokensService>(nodeEndpoint(channel.port2));
  afterAll(() => {
    channel.port1.close();
    channel.port2.close();
  });

  it('round-trips calls, results and errors through a MessagePort', async () => {
    const { entries } = generateSession({ seed: 8, entries: 200, model: 'anthropic:claude-sonnet-4-5', usage: true });
    const compaction = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 2_000 };
    const direct = await createTokensService().loadPath('d', clone(entries), { model: 'anthropic:claude-sonnet-4-5', compaction });
    const viaPort = await remote.loadPath('d', entries, { model: 'anthropic:claude-sonnet-4-5', compaction });
    expect(viaPort).toEqual(direct);
    expect(await remote.countEntries(entries.slice(0, 10))).toEqual(direct.computed.slice(0, 10).map((c) => c.tokens));
    // The batched path the app uses sends only text and gets the same caches back, in order.
    expect(await countEntriesInBatches(remote, entries, { batchSize: 7 })).toEqual(direct.computed.map((c) => c.tokens));
    const stray = new TreeBuilder().user('not a child of the leaf');
    await expect(remote.append('d', { ...stray, parentId: 'nowhere' })).rejects.toThrow(/not a child/);
    await expect(remote.contextFigure('never-loaded')).rejects.toThrow(/not loaded/);
  });
});

describe('tokens API in a Node worker thread', () => {
  it('answers from tokens.node-worker.ts, the bench entry', async () => {
    const worker = new Worker(new URL('./tokens.node-worker.ts', import.meta.url), { execArgv: ['--import', 'tsx'] });
    try {
      const api = wrap<TokensService>(nodeEndpoint(worker));
      expect(await api.ping()).toBe('pong');
      expect(await api.countTexts(['Hello, world!', '<|endoftext|>'])).toEqual([o200k.encode('Hello, world!').length, o200k.encode('<|endoftext|>', { disallowedSpecial: new Set() }).length]);
    } finally {
      await worker.terminate();
    }
  });
});
