import { describe, expect, it } from 'vitest';
import { listGroups, NO_PROJECT, PINNED_GROUP, filterSessions } from './listView';
import { applyOrganize, normalizeTags, parseTags, projectLabel, projectOf, projectSummaries, tagSummaries } from './organize';

const now = Date.UTC(2026, 4, 20, 12);
const day = 86_400_000;
const row = (id: string, o: Partial<{ project: string; cwd: string; tags: string[]; archived: boolean; pinned: boolean; updatedAt: number }> = {}) => ({ id, updatedAt: now - 1000, ...o });

describe('organising sessions', () => {
  it('an agent session is in the project of its working directory until the user says otherwise', () => {
    expect(projectOf({ cwd: '/home/me/app' })).toBe('/home/me/app');
    expect(projectOf({ cwd: '/home/me/app', project: 'Research' })).toBe('Research');
    expect(projectOf({ cwd: '/home/me/app', project: '' })).toBeUndefined();
    expect(projectOf({})).toBeUndefined();
    expect(projectLabel('/home/me/app')).toBe('app');
    expect(projectLabel('C:\\work\\api\\')).toBe('api');
    expect(projectLabel('Research')).toBe('Research');
  });

  it('projects are listed by label, two directories of one name told apart by their parent', () => {
    const list = projectSummaries([{ cwd: '/a/app' }, { cwd: '/b/app' }, { cwd: '/b/app' }, { project: 'Research' }, {}]);
    expect(list).toEqual([
      { project: '/a/app', label: 'app (a)', count: 1 },
      { project: '/b/app', label: 'app (b)', count: 2 },
      { project: 'Research', label: 'Research', count: 1 },
    ]);
  });

  it('tags: typed with commas, trimmed, one per spelling whatever the case, counted', () => {
    expect(parseTags(' bug ,  UI review, bug, ,Bug')).toEqual(['bug', 'UI review']);
    expect(normalizeTags(['a'.repeat(60)])[0]).toHaveLength(40);
    expect(tagSummaries([{ tags: ['bug'] }, { tags: ['Bug', 'ui'] }, {}])).toEqual([
      { tag: 'bug', count: 2 },
      { tag: 'ui', count: 1 },
    ]);
  });

  it('a change writes only what changes, and stores no empty or false field', () => {
    expect(applyOrganize({ pinned: true }, { pinned: true })).toBeNull();
    expect(applyOrganize({}, { pinned: true, archived: false })).toEqual({ pinned: true });
    expect(applyOrganize({ tags: ['a', 'b'] }, { removeTags: ['A'], addTags: ['c', 'b'] })).toEqual({ tags: ['b', 'c'] });
    expect(applyOrganize({ tags: ['a'] }, { removeTags: ['a'] })).toEqual({});
    // The working directory's own project is the automatic one; "none" is stored only where a directory would decide.
    expect(applyOrganize({ cwd: '/x', project: 'P' }, { project: '/x' })).toEqual({});
    expect(applyOrganize({ cwd: '/x' }, { project: '' })).toEqual({ project: '' });
    expect(applyOrganize({ project: 'P' }, { project: '' })).toEqual({});
    expect(applyOrganize({ project: 'P' }, { project: null })).toEqual({});
  });
});

describe('the list’s view', () => {
  const rows = [
    row('a', { cwd: '/w/app', tags: ['bug'] }),
    row('b', { cwd: '/w/app', archived: true }),
    row('c', { project: 'Research', pinned: true }),
    row('d', { updatedAt: now - 3 * day }),
    row('e', { tags: ['Bug'], pinned: true, archived: true }),
  ];
  const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

  it('archived sessions are only in the archive, but a search finds them', () => {
    expect(ids(filterSessions(rows, {}))).toEqual(['a', 'c', 'd']);
    expect(ids(filterSessions(rows, { archived: true }))).toEqual(['b', 'e']);
    expect(ids(filterSessions(rows, { searching: true }))).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('a title search finds archived sessions too, without a pinned group', () => {
    const titled = rows.map((r) => ({ ...r, title: `Session ${r.id.toUpperCase()}` }));
    expect(ids(filterSessions(titled, { query: ' session e ' }))).toEqual(['e']);
    expect(listGroups(titled, { query: 'session' }, now).map((g) => g.label)).toEqual(['Today', 'Previous 7 days']);
  });

  it('filters by project (or none) and by tag, ignoring its case', () => {
    expect(ids(filterSessions(rows, { project: '/w/app' }))).toEqual(['a']);
    expect(ids(filterSessions(rows, { project: NO_PROJECT }))).toEqual(['d']);
    expect(ids(filterSessions(rows, { tag: 'BUG', searching: true }))).toEqual(['a', 'e']);
  });

  it('pinned sessions come first, then the others by age; the archive has no pinned group', () => {
    const groups = listGroups(rows, {}, now);
    expect(groups.map((g) => [g.label, ids(g.items)])).toEqual([
      [PINNED_GROUP, ['c']],
      ['Today', ['a']],
      ['Previous 7 days', ['d']],
    ]);
    expect(listGroups(rows, { archived: true }, now).map((g) => g.label)).toEqual(['Today']);
  });

  it('20,000 sessions are filtered and grouped in well under a frame’s budget of work per keystroke', () => {
    const many = Array.from({ length: 20_000 }, (_, i) => row(`s${i}`, { cwd: `/w/p${i % 40}`, tags: i % 3 ? [] : ['t'], pinned: i % 500 === 0, archived: i % 7 === 0, updatedAt: now - i * 60_000 }));
    const t0 = performance.now();
    const groups = listGroups(many, { project: '/w/p3', tag: 't' }, now);
    const ms = performance.now() - t0;
    expect(groups.flatMap((g) => g.items).every((r) => r.cwd === '/w/p3' && r.tags?.includes('t') && !r.archived)).toBe(true);
    expect(ms).toBeLessThan(100);
  });
});
