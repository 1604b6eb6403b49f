import { SessionTree } from '@/lib/session/tree';
import type { EntryId } from '@/lib/session/types';
import { TreeBuilder } from './builder';
import { Rng } from './generate';

/** A tree with branches everywhere (edits, regenerations) and long runs between them: the tree view's worst case. */
export function branchingTree(size: number, seed: number): { tree: SessionTree; leafId: EntryId | null } {
  const r = new Rng(seed);
  const b = new TreeBuilder();
  const ids: EntryId[] = [];
  while (b.entries.length < size) {
    if (ids.length > 10 && r.chance(0.02)) b.at(ids[r.int(0, ids.length - 1)]!);
    const e = b.entries.length % 2 === 0 ? b.user(`prompt ${b.entries.length} ${r.id(8)}`) : b.assistant(`reply ${b.entries.length} ${r.id(8)}`);
    ids.push(e.id);
  }
  return { tree: new SessionTree(b.entries), leafId: b.cursor };
}
