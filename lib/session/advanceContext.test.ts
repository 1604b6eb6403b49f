import { describe, expect, it } from 'vitest';
import { importText } from '@/lib/formats';
import { generateSession } from '@/lib/testing/generate';
import { FIXTURES, readFixture } from '@/lib/testing/fixtures';
import { advanceSessionContext, buildSessionContext } from './context';
import { SessionTree } from './tree';
import type { MessageEntry, SessionEntry } from './types';

const reply = (id: string, parentId: string | null, text: string, status?: 'streaming'): MessageEntry => ({
  id,
  parentId,
  timestamp: 1,
  type: 'message',
  message: { role: 'assistant', content: text ? [{ type: 'text', text }] : [], ...(status ? { status } : { stopReason: 'stop' }) },
});
const prompt = (id: string, parentId: string | null, text: string): MessageEntry => ({ id, parentId, timestamp: 1, type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });

/** A turn as the chat writes it: the prompt and an empty streaming reply, then the reply growing chunk by chunk, then final. */
function streamTurn(leaf: string | null, turn: number): { steps: { changed: SessionEntry[]; leafId: string }[] } {
  const p = prompt(`p${turn}`, leaf, `question ${turn}`);
  const r0 = reply(`r${turn}`, p.id, '', 'streaming');
  const steps = [{ changed: [p, r0] as SessionEntry[], leafId: r0.id }];
  let text = '';
  for (let k = 0; k < 5; k++) {
    text += `chunk ${k} of the reply to ${turn}. `;
    steps.push({ changed: [reply(r0.id, p.id, text, 'streaming')], leafId: r0.id });
  }
  steps.push({ changed: [reply(r0.id, p.id, text)], leafId: r0.id });
  return { steps };
}

function sessions(): { name: string; entries: SessionEntry[]; leafId: string | null }[] {
  const out = [];
  for (const name of ['piV1', 'claudeViewer', 'chatgptTree'] as const) {
    const s = importText(readFixture(name), { fileName: FIXTURES[name] }).sessions[0]!;
    out.push({ name, entries: s.entries, leafId: s.meta.leafId });
  }
  const g = generateSession({ seed: 3, entries: 2_000, compactEvery: 60 });
  out.push({ name: 'generated, compacted', entries: g.entries, leafId: g.leafId });
  return out;
}

describe('advanceSessionContext', () => {
  it.each(sessions())('follows streamed turns exactly as building the context from scratch does ($name)', ({ entries, leafId }) => {
    const tree = new SessionTree(entries);
    let leaf = leafId ?? tree.newestLeaf();
    let ctx = buildSessionContext(tree, leaf);
    for (let turn = 0; turn < 3; turn++) {
      for (const step of streamTurn(leaf, turn).steps) {
        for (const e of step.changed) tree.replace(e);
        const next = advanceSessionContext(ctx, tree, step.leafId, step.changed);
        expect(next).not.toBeNull();
        expect(next).toEqual(buildSessionContext(tree, step.leafId));
        ctx = next!;
        leaf = step.leafId;
      }
    }
  });

  it('gives up (null) on what it cannot follow: a summary, a label, a leaf moved elsewhere, an entry far from the leaf', () => {
    const g = generateSession({ seed: 4, entries: 300 });
    const tree = new SessionTree(g.entries);
    const ctx = buildSessionContext(tree, g.leafId);
    const label: SessionEntry = { id: 'l1', parentId: g.leafId, timestamp: 1, type: 'label', targetId: g.entries[5]!.id, label: 'x' } as SessionEntry;
    expect(advanceSessionContext(ctx, tree, g.leafId, [label])).toBeNull();
    expect(advanceSessionContext(ctx, tree, g.entries[100]!.id, [])).toBeNull();
    const early = g.entries.find((e, i) => i < 100 && e.type === 'message')! as MessageEntry;
    const edited = { ...early, message: { ...early.message } };
    tree.replace(edited);
    expect(advanceSessionContext(ctx, tree, g.leafId, [edited])).toBeNull();
  });
});
