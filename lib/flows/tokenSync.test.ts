import { describe, expect, it, vi } from 'vitest';
import { importText } from '@/lib/formats';
import { SessionTree } from '@/lib/session/tree';
import type { AssistantMessage, EntryId, SessionEntry, TokenCache } from '@/lib/session/types';
import { readFixture } from '@/lib/testing/fixtures';
import { asyncTokens } from '@/lib/testing/flowPorts';
import { emptyCalibration, updateCalibration, type Calibration } from '@/lib/tokens/calibration';
import type { TokensPort } from './ports';
import { TokenSync, type TokenSyncOptions } from './tokenSync';

/** The real token service, every call recorded by name. */
function recordedTokens() {
  const real = asyncTokens();
  const calls: string[] = [];
  const port = new Proxy({} as TokensPort, {
    get: (_t, method: string) => {
      const fn = (real as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
      return (...args: unknown[]) => {
        calls.push(method);
        return fn(...args);
      };
    },
  });
  return { port, calls, take: () => calls.splice(0) };
}

/** The token caches and calibrations TokenSync persists, kept in memory. */
function memoryStore(calibrations = new Map<string, Calibration>()) {
  const cached = new Map<EntryId, TokenCache>();
  return {
    cached,
    calibrations,
    getCalibration: vi.fn(async (model: string) => calibrations.get(model)),
    setCalibration: vi.fn(async (model: string, c: Calibration) => void calibrations.set(model, c)),
    setEntryTokens: vi.fn(async (_session: string, tokens: ReadonlyArray<{ id: EntryId; tokens: TokenCache }>) => {
      for (const t of tokens) cached.set(t.id, t.tokens);
    }),
  };
}

/** A real pi session (fixtures/real): its active path, root → leaf, and its tree. */
function realPath() {
  const { entries, meta } = importText(readFixture('piV1'), { fileName: 'pi.jsonl' }).sessions[0]!;
  const tree = new SessionTree(entries);
  return { tree, path: tree.pathTo(meta.leafId) };
}

const OPTS: TokenSyncOptions = { model: 'openai:gpt-4o', contextWindow: 128_000 };

/** A TokenSync that has loaded `path`, with its recorded calls cleared: what a test's next change sends. */
async function loadedAt(path: SessionEntry[]) {
  const tokens = recordedTokens();
  const sync = new TokenSync('s1', tokens.port, memoryStore());
  await sync.sync(path, OPTS);
  tokens.take();
  return { tokens, sync };
}

/** What a fresh load of `path` counts: the reference every incremental sync must end at. */
async function freshFigure(path: SessionEntry[], opts: TokenSyncOptions = OPTS) {
  return (await asyncTokens().loadPath('fresh', path, opts)).figure;
}

describe('TokenSync: the token worker follows the path with only what changed', () => {
  it('loads the path once, then sends appends only; the figure equals a fresh count of the same path', async () => {
    const { path } = realPath();
    expect(path.length).toBeGreaterThan(6);
    const tokens = recordedTokens();
    const store = memoryStore();
    const sync = new TokenSync('s1', tokens.port, store);
    const seen: unknown[] = [];
    sync.onFigure((f) => seen.push(f));

    await sync.sync(path.slice(0, -3), OPTS);
    expect(tokens.take()).toEqual(['loadPath']);
    expect(sync.figure).toEqual(await freshFigure(path.slice(0, -3)));
    // What the worker counted is persisted, so it is not counted again after a reload.
    expect(store.setEntryTokens).toHaveBeenCalled();
    expect([...store.cached.keys()].every((id) => path.some((e) => e.id === id))).toBe(true);

    await sync.sync(path, OPTS);
    expect(tokens.take()).toEqual(['append']);
    expect(sync.figure).toEqual(await freshFigure(path));
    expect(seen.at(-1)).toEqual(sync.figure);
  });

  it('the same entries read again as new objects send nothing; a reply that grew sends one update', async () => {
    const { path } = realPath();
    const { tokens, sync } = await loadedAt(path);

    // IndexedDB hands back new objects after every write.
    await sync.sync(structuredClone(path), OPTS);
    expect(tokens.take()).toEqual([]);

    const at = path.findLastIndex((e) => e.type === 'message' && e.message.role === 'assistant');
    const reply = path[at] as SessionEntry & { message: AssistantMessage };
    const grown = { ...reply, message: { ...reply.message, content: [...reply.message.content, { type: 'text' as const, text: ' and one more paragraph of the streamed reply.' }] } };
    const next = path.with(at, grown);
    await sync.sync(next, OPTS);
    expect(tokens.take()).toEqual(['update']);
    expect(sync.figure).toEqual(await freshFigure(next));
  });

  it('moving to another branch sends the new tail from the common ancestor', async () => {
    const { entries, meta } = importText(readFixture('chatgptTree'), { fileName: 'tree.json' }).sessions[0]!;
    const tree = new SessionTree(entries);
    const path = tree.pathTo(meta.leafId);
    const onPath = new Set(path.map((e) => e.id));
    const point = tree.branchPoints().find((p) => tree.children(p.id).some((c) => !onPath.has(c.id)))!;
    const other = tree.pathTo(tree.newestLeafUnder(tree.children(point.id).find((c) => !onPath.has(c.id))!.id));

    const { tokens, sync } = await loadedAt(path);
    await sync.sync(other, OPTS);
    expect(tokens.take()).toEqual(['switchPath']);
    expect(sync.figure).toEqual(await freshFigure(other));
  });

  it('a new model or window is sent as options with that model’s stored calibration; a new system prompt reloads', async () => {
    const { path } = realPath();
    // A calibration learnt from replies whose provider reported 30 % more than was counted.
    let calibration = emptyCalibration();
    for (const counted of [800, 2_000, 5_000, 9_000]) calibration = updateCalibration(calibration, Math.round(counted * 1.3), counted);
    const store = memoryStore(new Map([['compat:local-model', calibration]]));
    const tokens = recordedTokens();
    const sync = new TokenSync('s1', tokens.port, store);
    await sync.sync(path, OPTS);
    tokens.take();

    const local = { model: 'compat:local-model', contextWindow: 32_000 };
    await sync.sync(path, local);
    expect(tokens.take()).toEqual(['setOptions']);
    expect(store.getCalibration).toHaveBeenLastCalledWith('compat:local-model');
    expect(sync.figure).toEqual((await asyncTokens().loadPath('fresh', path, { ...local, calibration })).figure);
    expect(sync.figure!.tokens).not.toBe((await freshFigure(path, local)).tokens);

    await sync.sync(path, { ...local, systemPrompt: 'Answer in French.' });
    expect(tokens.take()).toEqual(['loadPath']);
  });

  it('a preview adds the unsent message to the counted figure, approximate; dropping it restores the counted figure', async () => {
    const { path } = realPath();
    const sync = new TokenSync('s1', recordedTokens().port, memoryStore());
    sync.preview(50);
    expect(sync.figure).toBeNull(); // nothing counted yet: nothing to add to
    await sync.sync(path, OPTS);
    const counted = sync.figure!;
    sync.preview(0);
    expect(sync.figure).toBe(counted);
    sync.preview(120);
    expect(sync.figure).toMatchObject({ tokens: counted.tokens + 120, approximate: true, source: counted.source });
    sync.dropPreview();
    expect(sync.figure).toBe(counted);
  });

  it('a failed count leaves chatting alone and the next change reloads the worker’s copy; a failed write of caches is ignored', async () => {
    const { path } = realPath();
    const tokens = recordedTokens();
    const store = memoryStore();
    store.setEntryTokens.mockRejectedValueOnce(new Error('quota'));
    const sync = new TokenSync('s1', tokens.port, store);
    await sync.sync(path.slice(0, -1), OPTS);
    expect(sync.figure).toEqual(await freshFigure(path.slice(0, -1)));
    tokens.take();

    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const broken = new TokenSync('s2', { ...tokens.port, loadPath: async () => Promise.reject(new Error('worker gone')) } as TokensPort, store);
    await expect(broken.sync(path, OPTS)).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith('token sync failed', expect.any(Error));
    warn.mockRestore();

    // After a failed append the worker's copy is unknown: the next change loads the whole path again.
    const recorded = recordedTokens();
    let appendFails = true;
    const port = new Proxy(recorded.port, {
      get: (t, m: string) => (m === 'append' && appendFails ? async () => Promise.reject(new Error('lost')) : Reflect.get(t, m)),
    });
    const again = new TokenSync('s3', port, store);
    const quiet = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await again.sync(path.slice(0, -2), OPTS);
    await again.sync(path.slice(0, -1), OPTS);
    quiet.mockRestore();
    appendFails = false;
    await again.sync(path, OPTS);
    expect(recorded.take()).toEqual(['loadPath', 'loadPath']);
    expect(again.figure).toEqual(await freshFigure(path));
  });

  it('no options clears the figure', async () => {
    const { path } = realPath();
    const sync = new TokenSync('s1', recordedTokens().port, memoryStore());
    await sync.sync(path, OPTS);
    expect(sync.figure).not.toBeNull();
    await sync.sync(path, null);
    expect(sync.figure).toBeNull();
  });

  it('pinned runs its work on the path it was given, before a later sync moves the worker; its failure reaches the caller', async () => {
    const { path } = realPath();
    const tokens = recordedTokens();
    const sync = new TokenSync('s1', tokens.port, memoryStore());
    await sync.sync(path.slice(0, 3), OPTS);
    const order: string[] = [];
    const pinned = sync.pinned(path, OPTS, async () => {
      order.push(`pinned at ${sync.figure?.tokens}`);
      return 'done';
    });
    const later = sync.sync(path.slice(0, 4), OPTS).then(() => order.push('later sync'));
    await expect(pinned).resolves.toBe('done');
    await later;
    expect(order).toEqual([`pinned at ${(await freshFigure(path)).tokens}`, 'later sync']);

    await expect(sync.pinned(path, OPTS, async () => Promise.reject(new Error('summary failed')))).rejects.toThrow('summary failed');
    // The chain goes on after a failed pinned run.
    await sync.sync(path, OPTS);
    await expect(sync.flush()).resolves.toBeUndefined();
  });
});

describe('TokenSync: what it tells and what it writes', () => {
  it('a listener that unsubscribed hears nothing more; dropping a preview that was never shown tells nobody', async () => {
    const { path } = realPath();
    const sync = new TokenSync('s1', recordedTokens().port, memoryStore());
    const heard: string[] = [];
    const stopA = sync.onFigure(() => heard.push('a'));
    sync.onFigure(() => heard.push('b'));
    await sync.sync(path.slice(0, -1), OPTS);
    expect(heard).toEqual(['a', 'b']);
    stopA();
    await sync.sync(path, OPTS);
    expect(heard).toEqual(['a', 'b', 'b']);
    sync.dropPreview();
    expect(heard).toHaveLength(3);
    sync.preview(40);
    sync.dropPreview();
    expect(heard).toHaveLength(5);
  });

  it('a new window alone, or a new model alone, is sent as options and the figure follows it', async () => {
    const { path } = realPath();
    const { tokens, sync } = await loadedAt(path);
    const wider = { ...OPTS, contextWindow: 1_000_000 };
    await sync.sync(path, wider);
    expect(tokens.take()).toEqual(['setOptions']);
    expect(sync.figure).toEqual(await freshFigure(path, wider));
    const other = { ...wider, model: 'openai:gpt-4' };
    await sync.sync(path, other);
    expect(tokens.take()).toEqual(['setOptions']);
    expect(sync.figure).toEqual(await freshFigure(path, other));
    expect(sync.figure!.tokens).not.toBe((await freshFigure(path, wider)).tokens);
  });

  it('writes token caches only when something was counted, and a calibration only when a reply’s usage taught one', async () => {
    const { path } = realPath();
    const withUsage = path.findLastIndex((e) => e.type === 'message' && e.message.role === 'assistant' && !!e.message.usage);
    expect(withUsage).toBeGreaterThan(2);
    const reply = path[withUsage]!;
    const model = reply.type === 'message' && reply.message.role === 'assistant' ? reply.message.model : undefined;
    expect(model).toMatch(/^anthropic:/);
    const store = memoryStore();
    // The reply's own model, whose counts are estimates calibrated against the usage its provider reports.
    const local = { model: model!, contextWindow: 200_000 };
    const sync = new TokenSync('s1', recordedTokens().port, store);
    await sync.sync(path.slice(0, withUsage), local);
    expect(store.setEntryTokens).toHaveBeenCalled();
    store.setEntryTokens.mockClear();
    store.setCalibration.mockClear();
    // Back to an earlier point: nothing new to count, nothing learnt.
    await sync.sync(path.slice(0, withUsage - 2), local);
    expect(store.setEntryTokens).not.toHaveBeenCalled();
    expect(store.setCalibration).not.toHaveBeenCalled();
    // Forward to the reply whose provider reported its usage.
    await sync.sync(path.slice(0, withUsage + 1), local);
    expect(store.setCalibration).toHaveBeenCalledWith(model, expect.objectContaining({ samples: expect.any(Number) }));
  });

  it('a pinned run whose sync fails rejects before its work, and the next change loads the whole path again', async () => {
    const { path } = realPath();
    const recorded = recordedTokens();
    let appendFails = true;
    const port = new Proxy(recorded.port, {
      get: (t, m: string) => (m === 'append' && appendFails ? async () => Promise.reject(new Error('worker restarted')) : Reflect.get(t, m)),
    });
    const sync = new TokenSync('s1', port, memoryStore());
    await sync.sync(path.slice(0, -1), OPTS);
    let ran = false;
    await expect(
      sync.pinned(path, OPTS, async () => {
        ran = true;
      }),
    ).rejects.toThrow('worker restarted');
    expect(ran).toBe(false);
    appendFails = false;
    recorded.take();
    await sync.sync(path, OPTS);
    expect(recorded.take()).toEqual(['loadPath']);
    expect(sync.figure).toEqual(await freshFigure(path));
  });
});
