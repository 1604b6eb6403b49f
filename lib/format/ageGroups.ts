/**
 * Sessions grouped by how long ago they were used, as chat apps list them:
 * Today, Yesterday, Previous 7 days, Previous 30 days, then one group per
 * month ("March 2025"). Days are calendar days in the local time zone (what
 * "yesterday" means to the user); month names are English, like the rest of
 * the interface, so the grouping does not depend on the browser's locale.
 */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY = 86_400_000;

function startOfDay(ms: number): number {
  const d = new Date(ms);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** The group a time falls in, seen from `now`. A missing or impossible time is "Undated", never 1970. */
export function ageGroup(ts: number, now: number): string {
  if (!Number.isFinite(ts) || ts <= 0) return 'Undated';
  const today = startOfDay(now);
  if (ts >= today) return 'Today';
  // Whole days back, counted on calendar days so a daylight-saving change does not shift the boundary.
  const days = Math.round((today - startOfDay(ts)) / DAY);
  if (days <= 1) return 'Yesterday';
  if (days <= 7) return 'Previous 7 days';
  if (days <= 30) return 'Previous 30 days';
  const d = new Date(ts);
  return `${MONTHS[d.getMonth()]} ${d.getFullYear()}`;
}

export interface AgeGroup<T> {
  label: string;
  items: T[];
}

/** Items in their groups, keeping the order they came in (newest first, as the session list is sorted). */
export function groupByAge<T>(items: readonly T[], time: (item: T) => number, now: number): AgeGroup<T>[] {
  const groups: AgeGroup<T>[] = [];
  const byLabel = new Map<string, AgeGroup<T>>();
  for (const item of items) {
    const label = ageGroup(time(item), now);
    let group = byLabel.get(label);
    if (!group) {
      group = { label, items: [] };
      byLabel.set(label, group);
      groups.push(group);
    }
    group.items.push(item);
  }
  return groups;
}
