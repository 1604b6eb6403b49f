import { describe, expect, it } from 'vitest';
import { previewCompaction as previewOf } from '@/lib/compaction/prepare';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { loadSession, pathTokens } from '@/lib/testing/compactionData';
import { openSession, testModel, testPorts } from '@/lib/testing/flowPorts';
import { AppFlows } from './app';

/**
 * Issue 17, item 1, as the user meets it: an auto-compaction that is due but
 * cannot bring the context under the limit says so, with what to do, instead
 * of returning without a word.
 */

const WINDOW = 32_768;
const model = testModel('openai:gpt-4o', WINDOW, 16_000);

/** The real pi session up to the first moment where, at a 32k window, no cut leaves room for a summary. */
function stuckPrefix(): SessionEntry[] {
  const { path } = loadSession('piV1');
  for (let n = 2; n <= path.length; n++) {
    const sub = path.slice(0, n);
    const pv = previewOf(sub, pathTokens(sub), DEFAULT_COMPACTION_SETTINGS, { window: WINDOW });
    if (!pv.ok && pv.reason === 'recent-too-large') return sub;
  }
  throw new Error('the pi session has no such moment at this window');
}

describe('a due compaction that cannot help', () => {
  it('real pi session: auto-compaction warns with the figures and the way out, and appends nothing', async () => {
    const ports = testPorts();
    const flows = new AppFlows(ports);
    const { snapshot } = loadSession('piV1');
    const entries = stuckPrefix();
    const { imported } = await ports.store.importSnapshots([{ meta: { ...snapshot.meta, leafId: entries.at(-1)!.id }, entries }]);
    const id = imported[0]!.id;
    const s = await openSession(flows, id, { chatModel: model, summarizer: model, settings: DEFAULT_COMPACTION_SETTINGS });
    const count = (await ports.store.loadSession(id))!.entries.length;
    expect(await s.compact({ reason: 'auto' })).toBeNull();
    expect((await ports.store.loadSession(id))!.entries.length).toBe(count);
    const notice = ports.notices.at(-1);
    expect(notice).toMatchObject({ level: 'warning' });
    expect(notice!.message).toMatch(/over the compaction limit \(16,384\)/);
    expect(notice!.message).toMatch(/Shorten or split that message/);

    // Asked for by hand, the same reason is the answer (not "nothing to compact").
    expect(await s.compact({ reason: 'manual' })).toBeNull();
    expect(ports.notices.at(-1)!.message).toBe(notice!.message);
  });
});
