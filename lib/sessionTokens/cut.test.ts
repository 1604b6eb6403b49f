import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { buildSessionContext } from '@/lib/session/context';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings, type SessionEntry } from '@/lib/session/types';
import { readFixture, type FixtureName } from '@/lib/testing/fixtures';
import type { CutOptions } from './cut';
import { createTokensService } from './service';

const clone = <T>(x: T): T => structuredClone(x);

function fixturePath(name: FixtureName): SessionEntry[] {
  const [snap] = importText(readFixture(name), { fileName: `${name}.jsonl` }).sessions;
  return buildSessionContext(snap!.entries, snap!.meta.leafId).path;
}

/** Settings the app meets: a small and the default keep-recent, a window that clamps it, the force fallback. */
const CASES: { name: string; settings: CompactionSettings; opts: CutOptions }[] = [
  { name: 'keep 2,000', settings: { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 2_000 }, opts: {} },
  { name: 'default, 200k window', settings: DEFAULT_COMPACTION_SETTINGS, opts: { window: 200_000 } },
  { name: 'keep 8,000 in a 16k window', settings: { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 8_000 }, opts: { window: 16_384 } },
  { name: 'force, keep 4,000', settings: { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 4_000 }, opts: { force: true } },
];

describe('the token service cuts where compaction cuts', () => {
  for (const fixture of ['piV1', 'claudeViewer', 'claudeLog'] as const) {
    it(`equals prepareCompaction's cut while the ${fixture} session is replayed entry by entry`, async () => {
      const path = fixturePath(fixture);
      const api = createTokensService();
      const model = 'anthropic:claude-sonnet-4-5';
      const perUpdate = CASES[0]!.settings;
      await api.loadPath('s', [clone(path[0]!)], { model, contextWindow: 200_000, compaction: perUpdate });
      const step = Math.max(1, Math.floor(path.length / 60));
      const seen = { cuts: 0, splitTurns: 0, afterCompaction: 0, declined: 0, noCut: 0 };
      for (let i = 1; i < path.length; i++) {
        const update = api.append('s', clone(path[i]!));
        // Every update carries the cut for the settings it was loaded with: the same lookup.
        expect(update.cut).toEqual(api.findCut('s', perUpdate));
        if (i % step !== 0 && i !== path.length - 1) continue;
        for (const c of CASES) {
          const cut = api.findCut('s', c.settings, c.opts);
          const prepared = await api.prepareCompaction('s', c.settings, c.opts);
          const where = `${fixture} at ${i + 1} entries, ${c.name}`;
          if (prepared) {
            const { prep } = prepared;
            expect(cut, where).toEqual({
              index: prep.firstKeptIndex,
              entryId: prep.firstKeptEntryId,
              turnStartIndex: prep.turnStartIndex,
              keptTokens: prep.tokensKept,
              startIndex: prep.summarizeFromIndex,
              reason: null,
            });
            seen.cuts++;
            if (cut.turnStartIndex !== null) seen.splitTurns++;
            if (cut.startIndex > 0) seen.afterCompaction++;
            continue;
          }
          const preview = api.previewCompaction('s', c.settings, c.opts);
          expect(preview.ok, where).toBe(false);
          if (preview.ok) continue;
          // prepareCompaction declines these before it looks for a cut (see compactionCut).
          if (preview.reason === 'already-compacted' || preview.reason === 'empty') {
            seen.declined++;
            continue;
          }
          expect(cut, where).toMatchObject({ index: -1, entryId: null, reason: preview.reason });
          seen.noCut++;
        }
      }
      // The comparison covered real cuts, split turns, and paths too short to cut.
      expect(seen.cuts).toBeGreaterThan(20);
      expect(seen.noCut).toBeGreaterThan(0);
      if (fixture !== 'claudeLog') expect(seen.splitTurns).toBeGreaterThan(0);
      // The pi session carries two compactions: cuts after them start at the first kept entry.
      if (fixture === 'piV1') expect(seen.afterCompaction).toBeGreaterThan(0);
    });
  }
});
