import type { SessionMeta } from './types';

/**
 * How sessions are organised: projects, tags, archive and pins. All of it is
 * session metadata (stored on the session row, exported in the header, synced
 * last-writer-wins with the rest of the metadata), so there is no table of
 * projects or tags to keep in step: a project or a tag exists while a session
 * is in it. Agent sessions fall into the project of their working directory
 * without anyone filing them; the user's own choice overrides that.
 */

export const MAX_TAG_CHARS = 40;
export const MAX_TAGS = 30;
export const MAX_PROJECT_CHARS = 400;

/** Collapses whitespace and trims; empty means no tag. */
export function normalizeTag(tag: string): string {
  return tag.replace(/\s+/g, ' ').trim().slice(0, MAX_TAG_CHARS).trim();
}

/** Tags as stored: normalised, empty ones dropped, duplicates (ignoring case) dropped keeping the first spelling, at most MAX_TAGS. */
export function normalizeTags(tags: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of tags) {
    const tag = normalizeTag(raw);
    const key = tag.toLowerCase();
    if (!tag || seen.has(key)) continue;
    seen.add(key);
    out.push(tag);
    if (out.length >= MAX_TAGS) break;
  }
  return out;
}

/** Splits what the user typed ("bug, ui  review") into tags: commas separate, so a tag may hold spaces. */
export function parseTags(text: string): string[] {
  return normalizeTags(text.split(','));
}

export function normalizeProject(name: string): string {
  return name.replace(/\s+/g, ' ').trim().slice(0, MAX_PROJECT_CHARS);
}

/**
 * The project a session is in, or undefined for none: the one the user chose,
 * else the working directory an agent transcript recorded. An empty `project`
 * is the user's "no project", which a `cwd` does not override.
 */
export function projectOf(meta: Pick<SessionMeta, 'project' | 'cwd'>): string | undefined {
  if (meta.project !== undefined) return meta.project || undefined;
  return meta.cwd || undefined;
}

const isPath = (p: string) => /[/\\]/.test(p);

/** What a project is called in the list: a working directory by its last folder, a name as it is. */
export function projectLabel(project: string): string {
  if (!isPath(project)) return project;
  const parts = project.split(/[/\\]+/).filter(Boolean);
  return parts.at(-1) ?? project;
}

export interface ProjectSummary {
  /** The stored value: a name, or a working directory. */
  project: string;
  /** How the list names it; two working directories with the same last folder are told apart by the one above. */
  label: string;
  count: number;
}

/** Every project with its number of sessions, by label. */
export function projectSummaries(metas: Iterable<Pick<SessionMeta, 'project' | 'cwd'>>): ProjectSummary[] {
  const counts = new Map<string, number>();
  for (const m of metas) {
    const p = projectOf(m);
    if (p !== undefined) counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  const labels = new Map<string, string[]>();
  for (const p of counts.keys()) {
    const label = projectLabel(p);
    labels.set(label, [...(labels.get(label) ?? []), p]);
  }
  const out: ProjectSummary[] = [];
  for (const [project, count] of counts) {
    let label = projectLabel(project);
    if ((labels.get(label)?.length ?? 0) > 1 && isPath(project)) {
      const parts = project.split(/[/\\]+/).filter(Boolean);
      if (parts.length > 1) label = `${label} (${parts.at(-2)})`;
    }
    out.push({ project, label, count });
  }
  return out.sort((a, b) => a.label.localeCompare(b.label, 'en', { sensitivity: 'base' }) || a.project.localeCompare(b.project));
}

/** Every tag with its number of sessions, by name (tags that differ only in case are one). */
export function tagSummaries(metas: Iterable<Pick<SessionMeta, 'tags'>>): { tag: string; count: number }[] {
  const counts = new Map<string, { tag: string; count: number }>();
  for (const m of metas) {
    for (const t of m.tags ?? []) {
      const key = t.toLowerCase();
      const cur = counts.get(key);
      if (cur) cur.count++;
      else counts.set(key, { tag: t, count: 1 });
    }
  }
  return [...counts.values()].sort((a, b) => a.tag.localeCompare(b.tag, 'en', { sensitivity: 'base' }));
}

export const hasTag = (meta: Pick<SessionMeta, 'tags'>, tag: string): boolean => (meta.tags ?? []).some((t) => t.toLowerCase() === tag.toLowerCase());

/** A change the user makes to one or many sessions at once (the list's bulk actions). `project: null` puts them back in their automatic project. */
export interface OrganizeChange {
  project?: string | null;
  addTags?: readonly string[];
  removeTags?: readonly string[];
  archived?: boolean;
  pinned?: boolean;
}

type Organized = Pick<SessionMeta, 'project' | 'tags' | 'archived' | 'pinned'>;

/**
 * The organisation fields after `change`, or null when nothing changes (so a
 * bulk action writes, clocks and syncs only the sessions it really changes).
 * Absent fields are left out, never stored as false or empty.
 */
export function applyOrganize(meta: Organized & Pick<SessionMeta, 'cwd'>, change: OrganizeChange): Organized | null {
  const next: Organized = {};
  if (meta.project !== undefined) next.project = meta.project;
  if (meta.tags?.length) next.tags = [...meta.tags];
  if (meta.archived) next.archived = true;
  if (meta.pinned) next.pinned = true;
  if (change.project === null) delete next.project;
  else if (change.project !== undefined) {
    const p = normalizeProject(change.project);
    // The working directory's own project is the automatic one, and "none" needs saying only where there is a directory.
    if ((p && p === meta.cwd) || (!p && !meta.cwd)) delete next.project;
    else next.project = p;
  }
  if (change.addTags?.length || change.removeTags?.length) {
    const removed = new Set((change.removeTags ?? []).map((t) => normalizeTag(t).toLowerCase()));
    const tags = normalizeTags([...(next.tags ?? []).filter((t) => !removed.has(t.toLowerCase())), ...(change.addTags ?? [])]);
    if (tags.length) next.tags = tags;
    else delete next.tags;
  }
  if (change.archived !== undefined) {
    if (change.archived) next.archived = true;
    else delete next.archived;
  }
  if (change.pinned !== undefined) {
    if (change.pinned) next.pinned = true;
    else delete next.pinned;
  }
  const same =
    next.project === meta.project &&
    JSON.stringify(next.tags ?? []) === JSON.stringify(meta.tags ?? []) &&
    !!next.archived === !!meta.archived &&
    !!next.pinned === !!meta.pinned;
  return same ? null : next;
}
