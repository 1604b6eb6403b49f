import type { EntryId, SessionEntry } from './types';

/**
 * An index over a session's entries: by id, children by parent, and the path
 * helpers everything else needs. Built once per snapshot in O(n); entries are
 * append-only, so `add` keeps the index current without a rebuild.
 */
export class SessionTree {
  private readonly byId = new Map<EntryId, SessionEntry>();
  private readonly childrenOf = new Map<EntryId | null, SessionEntry[]>();
  /** Insertion order, which is also a valid topological order for a well-formed session. */
  private readonly order: SessionEntry[] = [];
  private readonly position = new Map<EntryId, number>();

  constructor(entries: Iterable<SessionEntry> = []) {
    for (const e of entries) this.add(e);
  }

  add(entry: SessionEntry): void {
    if (this.byId.has(entry.id)) throw new Error(`Duplicate entry id ${entry.id}`);
    this.byId.set(entry.id, entry);
    this.position.set(entry.id, this.order.length);
    this.order.push(entry);
    const key = entry.parentId;
    const siblings = this.childrenOf.get(key);
    if (siblings) siblings.push(entry);
    else this.childrenOf.set(key, [entry]);
  }

  /**
   * Swaps in a newer version of an existing entry (a reply still streaming, or
   * a token cache filled in). Position in the tree cannot change.
   */
  replace(entry: SessionEntry): void {
    const old = this.byId.get(entry.id);
    if (!old) return this.add(entry);
    if (old.parentId !== entry.parentId) throw new Error(`Entry ${entry.id} cannot move in the tree`);
    this.byId.set(entry.id, entry);
    const siblings = this.childrenOf.get(entry.parentId)!;
    siblings[siblings.indexOf(old)] = entry;
    this.order[this.position.get(entry.id)!] = entry;
  }

  get size(): number {
    return this.order.length;
  }

  has(id: EntryId): boolean {
    return this.byId.has(id);
  }

  get(id: EntryId): SessionEntry | undefined {
    return this.byId.get(id);
  }

  /** Entries in the order they were added. */
  entries(): readonly SessionEntry[] {
    return this.order;
  }

  children(id: EntryId | null): readonly SessionEntry[] {
    return this.childrenOf.get(id) ?? [];
  }

  roots(): readonly SessionEntry[] {
    const roots = [...this.children(null)];
    // An entry whose parent is missing (a truncated import) is treated as a root so it stays reachable.
    for (const [parent, kids] of this.childrenOf) {
      if (parent !== null && !this.byId.has(parent)) roots.push(...kids);
    }
    return roots;
  }

  /** Entries from the root to `leafId`, inclusive. Empty for a null or unknown leaf. */
  pathTo(leafId: EntryId | null | undefined): SessionEntry[] {
    const path: SessionEntry[] = [];
    const seen = new Set<EntryId>();
    let cur = leafId ? this.byId.get(leafId) : undefined;
    while (cur) {
      if (seen.has(cur.id)) throw new Error(`Cycle in session tree at ${cur.id}`);
      seen.add(cur.id);
      path.push(cur);
      cur = cur.parentId ? this.byId.get(cur.parentId) : undefined;
    }
    return path.reverse();
  }

  /** Ids of the ancestors of `id` including itself, leaf first. */
  private ancestorIds(id: EntryId): EntryId[] {
    const out: EntryId[] = [];
    let cur = this.byId.get(id);
    while (cur) {
      out.push(cur.id);
      cur = cur.parentId ? this.byId.get(cur.parentId) : undefined;
    }
    return out;
  }

  /** The deepest entry that is an ancestor of (or equal to) both; null when they share no root. */
  commonAncestor(a: EntryId, b: EntryId): EntryId | null {
    const onA = new Set(this.ancestorIds(a));
    for (const id of this.ancestorIds(b)) if (onA.has(id)) return id;
    return null;
  }

  isAncestor(ancestor: EntryId, of: EntryId): boolean {
    let cur = this.byId.get(of);
    while (cur) {
      if (cur.id === ancestor) return true;
      cur = cur.parentId ? this.byId.get(cur.parentId) : undefined;
    }
    return false;
  }

  /** Entries with more than one child. */
  branchPoints(): SessionEntry[] {
    const out: SessionEntry[] = [];
    for (const e of this.order) if (this.children(e.id).length > 1) out.push(e);
    return out;
  }

  /** Entries without children. */
  leaves(): SessionEntry[] {
    return this.order.filter((e) => this.children(e.id).length === 0);
  }

  /**
   * The leaf reached from `id` by always following the newest child: where the
   * user most recently was below that point.
   */
  newestLeafUnder(id: EntryId): EntryId {
    let cur = id;
    for (;;) {
      const kids = this.children(cur);
      if (kids.length === 0) return cur;
      let newest = kids[0]!;
      for (const k of kids) if (k.timestamp >= newest.timestamp) newest = k;
      cur = newest.id;
    }
  }

  /** The newest leaf of the whole tree: a sensible default leaf for sessions that lost theirs. */
  newestLeaf(): EntryId | null {
    let best: SessionEntry | undefined;
    for (const e of this.order) {
      if (this.children(e.id).length > 0) continue;
      if (!best || e.timestamp >= best.timestamp) best = e;
    }
    return best?.id ?? null;
  }
}

/** Depth-first pre-order over the tree, children in insertion order; iterative so deep trees don't overflow the stack. */
export function* walkDepthFirst(tree: SessionTree): Generator<{ entry: SessionEntry; depth: number }> {
  const stack: { entry: SessionEntry; depth: number }[] = [];
  const roots = tree.roots();
  for (let i = roots.length - 1; i >= 0; i--) stack.push({ entry: roots[i]!, depth: 0 });
  while (stack.length) {
    const top = stack.pop()!;
    yield top;
    const kids = tree.children(top.entry.id);
    for (let i = kids.length - 1; i >= 0; i--) stack.push({ entry: kids[i]!, depth: top.depth + 1 });
  }
}
