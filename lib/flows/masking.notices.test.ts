import { describe, expect, it } from 'vitest';
import { formatCount } from '@/lib/format/numbers';
import { DEFAULT_COMPACTION_SETTINGS, type CompactionSettings } from '@/lib/session/types';
import { openRawAgentSession } from '@/lib/testing/flowPorts';
import { maskToolOutput } from './masking';

/**
 * What masking tells the user and where it hangs the mask: the count and the
 * figures of a mask, the undo and redo, a second mask with nothing left to
 * mask (told when asked by hand, silent as a stage of compaction), and a mask
 * of a path the tab is not showing.
 */

const SETTINGS: CompactionSettings = { ...DEFAULT_COMPACTION_SETTINGS, maskToolOutput: true, maskProtectTokens: 8_000 };

describe('masking old tool output', () => {
  it.each([
    ['claudeLog', '1 old tool output'],
    ['codexRollout', 'old tool outputs'],
  ] as const)('%s: says how many outputs it masked ("%s") and the figures before and after; undo and redo say what they did', async (fixture, counted) => {
    const { ports, s, id } = await openRawAgentSession(fixture, SETTINGS);
    const plan = (await s.previewMasking())!;
    const maskId = (await s.maskToolOutput())!;
    expect(ports.notices).toEqual([
      {
        level: 'success',
        message: `Masked ${counted === 'old tool outputs' ? `${plan.maskedIds.length} ` : ''}${counted}: ${formatCount(Math.round(plan.tokensBefore))} → ${formatCount(Math.round(plan.tokensAfter))} tokens. The originals are kept; undo it in the Timeline.`,
      },
    ]);
    const mask = (await ports.store.loadSession(id))!.entries.find((e) => e.id === maskId)!;
    expect(mask).toMatchObject({ type: 'tool_mask', maskedIds: plan.maskedIds, tokensBefore: Math.round(plan.tokensBefore), tokensAfter: Math.round(plan.tokensAfter) });

    await s.setMaskUndone({ id: maskId }, true);
    await s.setMaskUndone({ id: maskId }, false);
    expect(ports.notices.slice(1)).toEqual([
      { level: 'success', message: 'Masking undone: the full tool output is back in context.' },
      { level: 'success', message: 'Masking restored.' },
    ]);
    const revisions = (await ports.store.loadSession(id))!.entries.filter((e) => e.type === 'summary_revision');
    expect(revisions.map((r) => r.type === 'summary_revision' && [r.targetId, r.action])).toEqual([
      [maskId, 'undo'],
      [maskId, 'redo'],
    ]);
  });

  it('with nothing left to mask it appends nothing: asked by hand it says why, as a stage of compaction it is silent', async () => {
    const { ports, s, id } = await openRawAgentSession('claudeLog', SETTINGS);
    await s.maskToolOutput();
    const entries = (await ports.store.loadSession(id))!.entries.length;
    ports.notices.length = 0;
    expect(await maskToolOutput(s, { quiet: true })).toBeNull();
    expect(ports.notices).toEqual([]);
    expect(await s.maskToolOutput()).toBeNull();
    expect(ports.notices).toEqual([
      { level: 'info', message: 'No old tool output to mask: the outputs outside the protected recent part are already masked, small, or images.' },
    ]);
    expect((await ports.store.loadSession(id))!.entries).toHaveLength(entries);
  });

  it('masks the path it is given, not the one the tab shows, and hangs the mask at its end', async () => {
    const { ports, s, id } = await openRawAgentSession('claudeLog', SETTINGS);
    const { tree, leafId } = s.live.getSnapshot();
    const path = tree.pathTo(leafId);
    // The tab shows the start of the conversation, where there is nothing to mask.
    s.live.setLeaf(path[1]!.id);
    expect(await maskToolOutput(s, { quiet: true })).toBeNull();
    const maskId = (await maskToolOutput(s, { leafId, quiet: true }))!;
    const mask = (await ports.store.loadSession(id))!.entries.find((e) => e.id === maskId)!;
    expect(mask.parentId).toBe(leafId);
  });
});
