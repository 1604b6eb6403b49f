import type { SessionTree } from '@/lib/session/tree';
import type { EntryId, SessionEntry } from '@/lib/session/types';
import { passesFilter, type TreeFilter } from './filters';
import { previewSearchText } from './preview';

/**
 * From a SessionTree to the rows of the tree view.
 *
 * Layout: only branches indent. A chain of single children (the usual case:
 * a 1,000-message session is one chain) is one run of rows at the same level;
 * the children of a branch point start runs one level deeper, one run per
 * child, in the order they were added. In ARIA terms the rows of a run are
 * siblings (a flat list of treeitems with aria-level, as the APG allows), and
 * the tree parent of a row is the branch point its run hangs from, so Left
 * from anywhere in a run goes to the branch point above it, and folding a
 * branch point hides every run below it.
 *
 * Work is split in two so each step is paid only when its inputs change:
 * - buildForest (tree version, filter, labels): which entries are visible and
 *   how they hang together once hidden entries are skipped. O(n).
 * - flattenForest (folds, text query, leaf, active path): the rows. O(n) with
 *   typed arrays and no per-row allocation besides the row itself.
 * 10,000 entries take a few milliseconds for both together (flatten.perf.test.ts
 * holds it under 30 ms).
 */

export interface Forest {
  readonly tree: SessionTree;
  readonly filter: TreeFilter;
  readonly labels: ReadonlyMap<EntryId, string>;
  /** Visible entries in depth-first pre-order, so every subtree is a contiguous range. */
  readonly nodes: readonly SessionEntry[];
  readonly indexOf: ReadonlyMap<EntryId, number>;
  /** Node index of the nearest visible ancestor; -1 for a root of the visible forest. */
  readonly parent: Int32Array;
  readonly childCount: Int32Array;
  /** 1-based position among the visible children of its visible parent (roots among roots). */
  readonly childPos: Int32Array;
  /** Subtree size, the node included. */
  readonly size: Int32Array;
  /** aria-level: 1 at the top, +1 below a branch point, unchanged along a chain. */
  readonly level: Int32Array;
  /** Node index of the tree parent (the branch point above the node's run); -1 at the top level. */
  readonly treeParent: Int32Array;
  readonly rootCount: number;
  /** 1 when the entry has no children at all in the session. */
  readonly isLeaf: Uint8Array;
}

export interface TreeRow {
  id: EntryId;
  entry: SessionEntry;
  /** aria-level (1-based). */
  level: number;
  /** level - 1: the indentation step. */
  depth: number;
  /** Position among the rows with the same tree parent (aria-posinset / aria-setsize). */
  posinset: number;
  setsize: number;
  /** Row index of the tree parent, -1 at the top level. */
  parentIndex: number;
  /** Two or more visible children: the only rows whose children indent. */
  isBranchPoint: boolean;
  /** Number of visible children. */
  childCount: number;
  /** Has child rows that can be shown (gets aria-expanded). */
  expandable: boolean;
  expanded: boolean;
  /** For the first row of a branch (or of a root when there are several): 1-based index and count; 0 otherwise. */
  branchIndex: number;
  branchCount: number;
  onActivePath: boolean;
  /** The row standing for the session's leaf (the leaf itself, or its nearest visible ancestor when the filter hides it). */
  isCurrent: boolean;
  /** No children at all in the session, whatever the filter: the tip of a branch. */
  isLeaf: boolean;
  /** Matches the text query (false for rows shown only as context, and for every row without a query). */
  match: boolean;
  label: string | undefined;
}

export interface FlatTree {
  rows: TreeRow[];
  /** Row index by entry id. */
  rowIndex: Map<EntryId, number>;
  /** Row indices of branch points, ascending: PageUp / PageDown targets. */
  branchRows: number[];
  /** Row index of the current leaf's row, -1 when it is folded away or filtered out. */
  currentIndex: number;
  /** Entry id the current row stands for, whether or not it is shown (nearest visible ancestor of the leaf). */
  currentId: EntryId | null;
  /** Rows matching the query (0 without one). */
  matchCount: number;
  /** Entries the filter keeps, before folding and the text query. */
  visibleCount: number;
}

export interface ForestOptions {
  filter: TreeFilter;
  labels: ReadonlyMap<EntryId, string>;
}

export function buildForest(tree: SessionTree, { filter, labels }: ForestOptions): Forest {
  const total = tree.size;
  const nodes: SessionEntry[] = [];
  const indexOf = new Map<EntryId, number>();
  const parent = new Int32Array(total);
  const childCount = new Int32Array(total);
  const childPos = new Int32Array(total);
  const isLeaf = new Uint8Array(total);
  let rootCount = 0;

  // Iterative pre-order walk of the real tree, carrying the nearest visible ancestor.
  const stackEntry: SessionEntry[] = [];
  const stackAnc: number[] = [];
  const roots = tree.roots();
  for (let i = roots.length - 1; i >= 0; i--) {
    stackEntry.push(roots[i]!);
    stackAnc.push(-1);
  }
  while (stackEntry.length) {
    const e = stackEntry.pop()!;
    let anc = stackAnc.pop()!;
    if (passesFilter(e, filter, labels)) {
      const i = nodes.length;
      nodes.push(e);
      indexOf.set(e.id, i);
      parent[i] = anc;
      if (anc >= 0) childPos[i] = ++childCount[anc]!;
      else childPos[i] = ++rootCount;
      anc = i;
    }
    const kids = tree.children(e.id);
    if (anc >= 0 && nodes[anc] === e) isLeaf[anc] = kids.length === 0 ? 1 : 0;
    for (let k = kids.length - 1; k >= 0; k--) {
      stackEntry.push(kids[k]!);
      stackAnc.push(anc);
    }
  }

  const n = nodes.length;
  const level = new Int32Array(n);
  const treeParent = new Int32Array(n);
  // Parents come before children in pre-order, so one forward pass settles levels.
  for (let i = 0; i < n; i++) {
    const p = parent[i]!;
    if (p < 0) {
      level[i] = 1;
      treeParent[i] = -1;
    } else if (childCount[p]! >= 2) {
      level[i] = level[p]! + 1;
      treeParent[i] = p;
    } else {
      level[i] = level[p]!;
      treeParent[i] = treeParent[p]!;
    }
  }
  // ...and one backward pass adds subtree sizes up.
  const size = new Int32Array(n).fill(1);
  for (let i = n - 1; i > 0; i--) {
    const p = parent[i]!;
    if (p >= 0) size[p]! += size[i]!;
  }

  return {
    tree,
    filter,
    labels,
    nodes,
    indexOf,
    parent: parent.subarray(0, n),
    childCount: childCount.subarray(0, n),
    childPos: childPos.subarray(0, n),
    size,
    level,
    treeParent,
    rootCount,
    isLeaf: isLeaf.subarray(0, n),
  };
}

export interface FlattenOptions {
  /** Branch points whose runs are hidden. Ids that are not branch points are ignored. */
  folded?: ReadonlySet<EntryId>;
  /**
   * Text filter, case-insensitive, matched against the row's preview and its
   * label. Matching rows are shown together with their ancestors in the
   * displayed tree, i.e. the branch points above them, at their usual levels.
   * The entries of the runs in between are left out: on a long linear session
   * every entry is an ancestor of the last match, and showing them all would
   * make the filter useless.
   */
  query?: string;
  leafId?: EntryId | null;
  activePathIds?: ReadonlySet<EntryId>;
}

const NO_IDS: ReadonlySet<EntryId> = new Set();

/** The node that stands for `leafId`: itself, or its nearest ancestor the filter keeps. */
export function currentNode(forest: Forest, leafId: EntryId | null | undefined): number {
  let cur = leafId ? forest.tree.get(leafId) : undefined;
  let guard = forest.tree.size;
  while (cur && guard-- >= 0) {
    const i = forest.indexOf.get(cur.id);
    if (i !== undefined) return i;
    cur = cur.parentId ? forest.tree.get(cur.parentId) : undefined;
  }
  return -1;
}

export function flattenForest(forest: Forest, opts: FlattenOptions = {}): FlatTree {
  const { nodes, childCount, childPos, size, level, treeParent, parent, labels, isLeaf } = forest;
  const n = nodes.length;
  const folded = opts.folded ?? NO_IDS;
  const active = opts.activePathIds ?? NO_IDS;
  const q = (opts.query ?? '').trim().toLowerCase();

  // With a query: matches, plus the branch points above them. Each node is climbed at most once.
  let included: Uint8Array | null = null;
  let matched: Uint8Array | null = null;
  let matchBelow: Uint8Array | null = null;
  if (q) {
    included = new Uint8Array(n);
    matched = new Uint8Array(n);
    matchBelow = new Uint8Array(n);
    const climbed = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const e = nodes[i]!;
      const label = labels.get(e.id);
      if (!previewSearchText(e).includes(q) && !(label && label.toLowerCase().includes(q))) continue;
      matched[i] = 1;
      included[i] = 1;
      for (let j = parent[i]!; j >= 0 && !climbed[j]; j = parent[j]!) {
        climbed[j] = 1;
        if (childCount[j]! >= 2) {
          included[j] = 1;
          matchBelow[j] = 1;
        }
      }
    }
  }

  const current = currentNode(forest, opts.leafId);
  const rows: TreeRow[] = [];
  const rowIndex = new Map<EntryId, number>();
  const branchRows: number[] = [];
  const rowOf = new Int32Array(n).fill(-1);
  // Sibling counters per tree parent; slot 0 is the top level.
  const counts = new Int32Array(n + 1);
  const groupOf: number[] = [];
  let matchCount = 0;
  let currentIndex = -1;

  for (let i = 0; i < n; ) {
    if (included && !included[i]) {
      i++;
      continue;
    }
    const e = nodes[i]!;
    const kids = childCount[i]!;
    const isBranchPoint = kids >= 2;
    const expandable = isBranchPoint && (!matchBelow || matchBelow[i] === 1);
    const expanded = expandable && !folded.has(e.id);
    const p = parent[i]!;
    const headOfBranch = p >= 0 ? childCount[p]! >= 2 : forest.rootCount >= 2;
    const tp = treeParent[i]!;
    const index = rows.length;
    const isMatch = matched !== null && matched[i] === 1;
    rows.push({
      id: e.id,
      entry: e,
      level: level[i]!,
      depth: level[i]! - 1,
      posinset: ++counts[tp + 1]!,
      setsize: 0,
      parentIndex: tp >= 0 ? rowOf[tp]! : -1,
      isBranchPoint,
      childCount: kids,
      expandable,
      expanded,
      branchIndex: headOfBranch ? childPos[i]! : 0,
      branchCount: headOfBranch ? (p >= 0 ? childCount[p]! : forest.rootCount) : 0,
      onActivePath: active.has(e.id),
      isCurrent: i === current,
      isLeaf: isLeaf[i] === 1,
      match: isMatch,
      label: labels.get(e.id),
    });
    rowOf[i] = index;
    groupOf.push(tp + 1);
    rowIndex.set(e.id, index);
    if (isBranchPoint) branchRows.push(index);
    if (isMatch) matchCount++;
    if (i === current) currentIndex = index;
    i += expandable && !expanded ? size[i]! : 1;
  }
  for (let r = 0; r < rows.length; r++) rows[r]!.setsize = counts[groupOf[r]!]!;

  return {
    rows,
    rowIndex,
    branchRows,
    currentIndex,
    currentId: current >= 0 ? nodes[current]!.id : null,
    matchCount,
    visibleCount: n,
  };
}

/** buildForest + flattenForest, for callers that do not keep the forest between calls. */
export function flattenTree(tree: SessionTree, opts: ForestOptions & FlattenOptions): FlatTree {
  return flattenForest(buildForest(tree, opts), opts);
}
