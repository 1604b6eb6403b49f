import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { loadSession, pathTokens } from '@/lib/testing/compactionData';
import { compactionLimit } from './policy';
import { previewCompaction } from './prepare';
import { noCompactionMessage } from './reasons';
import type { NoCompactionReason } from './types';

describe('why a compaction did nothing, for the user', () => {
  it('every reason has a sentence that names what to do', () => {
    const reasons: NoCompactionReason[] = ['empty', 'already-compacted', 'below-keep-recent', 'nothing-to-summarize', 'recent-too-large'];
    for (const reason of reasons) {
      const text = noCompactionMessage({ reason, tokensBefore: 20_000, keepRecentTokens: 3_000, limit: 16_384 });
      // Words, not the internal code.
      expect(text).not.toContain(reason);
      // An action: a setting, a place in the app, or what to change in the conversation.
      if (reason !== 'empty') expect(text).toMatch(/Lower|Send|undo|Shorten|switch/);
    }
  });

  it('real pi session at a 32k window, right after a huge tool result: the preview explains with the real figures', () => {
    const { path } = loadSession('piV1');
    // Growing the real session until compaction is due and no cut can help (one such moment exists: see overLimit.test.ts).
    const window = 32_768;
    const limit = compactionLimit(window, DEFAULT_COMPACTION_SETTINGS);
    for (let n = 2; n <= path.length; n++) {
      const sub = path.slice(0, n);
      const pv = previewCompaction(sub, pathTokens(sub), DEFAULT_COMPACTION_SETTINGS, { window });
      if (pv.ok || pv.reason !== 'recent-too-large') continue;
      const text = noCompactionMessage({ ...pv, limit });
      expect(pv.tokensBefore).toBeGreaterThan(limit);
      expect(text).toContain(`over the compaction limit (16,384)`);
      expect(text).toContain(pv.tokensBefore.toLocaleString('en-US'));
      return;
    }
    throw new Error('no over-limit moment without a fitting cut in the pi session');
  });
});
