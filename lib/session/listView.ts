import { groupByAge, type AgeGroup } from '@/lib/format/ageGroups';
import { hasTag, projectOf } from './organize';
import type { SessionMeta } from './types';

/**
 * What the session list shows for the filters the user set: archived
 * sessions only in the archive (or when searching: archived is out of the
 * list, not out of reach), the project and tag chosen, pinned sessions first,
 * then the rest by when they were last used.
 */

/** The project filter's value for sessions in no project. */
export const NO_PROJECT = '\u0000none';

export interface ListFilter {
  /** A project, NO_PROJECT, or undefined for every project. */
  project?: string;
  tag?: string;
  /** The archive instead of the list. */
  archived?: boolean;
  /** A title search is running: archived sessions are found too. */
  searching?: boolean;
  /** Words the title must hold (case-insensitive); searching when not blank. */
  query?: string;
}

type Listed = Pick<SessionMeta, 'project' | 'cwd' | 'tags' | 'archived' | 'pinned' | 'updatedAt'> & { title?: string; titleLower?: string };

export function filterSessions<T extends Listed>(rows: readonly T[], f: ListFilter): T[] {
  const q = f.query?.trim().toLowerCase() ?? '';
  const searching = f.searching || q !== '';
  return rows.filter((r) => {
    if (q && !(r.titleLower ?? r.title?.toLowerCase() ?? '').includes(q)) return false;
    if (!searching && !!r.archived !== !!f.archived) return false;
    if (f.project !== undefined) {
      const p = projectOf(r);
      if (f.project === NO_PROJECT ? p !== undefined : p !== f.project) return false;
    }
    if (f.tag !== undefined && !hasTag(r, f.tag)) return false;
    return true;
  });
}

export const PINNED_GROUP = 'Pinned';

/** The groups to show, in order: Pinned (outside the archive), then by age; rows keep the order they came in (newest first). */
export function listGroups<T extends Listed>(rows: readonly T[], f: ListFilter, now: number): AgeGroup<T>[] {
  const shown = filterSessions(rows, f);
  if (f.archived || f.query?.trim()) return groupByAge(shown, (r) => r.updatedAt, now);
  const pinned = shown.filter((r) => r.pinned);
  const rest = pinned.length ? shown.filter((r) => !r.pinned) : shown;
  const groups = groupByAge(rest, (r) => r.updatedAt, now);
  return pinned.length ? [{ label: PINNED_GROUP, items: pinned }, ...groups] : groups;
}
