import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { loadSession, pathTokens } from '@/lib/testing/compactionData';
import { compactionEntryFrom } from './compact';
import { prepareCompaction, prepareRegeneration } from './prepare';

describe('prepareRegeneration', () => {
  it('re-derives exactly what a compaction on a real session summarised', () => {
    const { path } = loadSession('claudeLog');
    const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: 3000 };
    const prep = prepareCompaction(path, pathTokens(path), settings)!;
    expect(prep).not.toBeNull();
    const entry = {
      ...(compactionEntryFrom({ summary: 'S', firstKeptEntryId: prep.firstKeptEntryId, tokensBefore: prep.tokensBefore, estimatedTokensAfter: 0, leafId: prep.leafId, details: { readFiles: [], modifiedFiles: [], summarizer: { kind: 'extractive' }, isSplitTurn: prep.isSplitTurn } }) as SessionEntry),
      id: 'c-new',
      parentId: path.at(-1)!.id,
      timestamp: Date.now(),
    } as SessionEntry;
    // Later on the path: the compaction, then more messages; regeneration looks only at what came before it.
    const later: SessionEntry = { id: 'later', parentId: 'c-new', timestamp: Date.now(), type: 'message', message: { role: 'user', content: [{ type: 'text', text: 'after' }] } };
    const full = [...path, entry, later];
    const before = full.slice(0, full.indexOf(entry));
    const again = prepareRegeneration(before, pathTokens(before), settings, entry as Parameters<typeof prepareRegeneration>[3] & SessionEntry)!;
    expect(again.firstKeptEntryId).toBe(prep.firstKeptEntryId);
    expect(again.isSplitTurn).toBe(prep.isSplitTurn);
    expect(again.messagesToSummarize.map((m) => m.entryId)).toEqual(prep.messagesToSummarize.map((m) => m.entryId));
    expect(again.turnPrefixMessages.map((m) => m.entryId)).toEqual(prep.turnPrefixMessages.map((m) => m.entryId));
    expect(again.fileOps).toEqual(prep.fileOps);
    expect(again.tokensKept).toBe(prep.tokensKept);
  });

  it('returns null when the kept entry is not on the path', () => {
    const { path } = loadSession('claudeLog');
    const r = prepareRegeneration(path, pathTokens(path), DEFAULT_COMPACTION_SETTINGS, { id: 'c', firstKeptEntryId: 'missing', tokensBefore: 1, details: {} });
    expect(r).toBeNull();
  });
});
