import { errorMessage } from '@/lib/errors';
import { formatCount } from '@/lib/format/numbers';
import { normalizeProject, normalizeTags, projectLabel, type OrganizeChange } from '@/lib/session/organize';
import type { FlowPorts } from './ports';

/**
 * The session list's actions on one or many sessions: pin, archive, tag, move
 * to a project, export, delete. Each is one write whatever the number of
 * sessions, and says in one sentence what it did.
 */

const sessions = (n: number) => `${formatCount(n)} session${n === 1 ? '' : 's'}`;

function sentence(change: OrganizeChange, n: number): string {
  if (change.archived !== undefined) return `${change.archived ? 'Archived' : 'Unarchived'} ${sessions(n)}`;
  if (change.pinned !== undefined) return `${change.pinned ? 'Pinned' : 'Unpinned'} ${sessions(n)}`;
  if (change.project !== undefined) {
    if (change.project === null) return `Moved ${sessions(n)} back to their working directory’s project`;
    const p = normalizeProject(change.project);
    return p ? `Moved ${sessions(n)} to ${projectLabel(p)}` : `Took ${sessions(n)} out of their project`;
  }
  const added = normalizeTags(change.addTags ?? []);
  const removed = normalizeTags(change.removeTags ?? []);
  if (added.length && !removed.length) return `Tagged ${sessions(n)} ${added.join(', ')}`;
  if (removed.length && !added.length) return `Removed ${removed.join(', ')} from ${sessions(n)}`;
  return `Changed the tags of ${sessions(n)}`;
}

/** Applies the change; archiving offers Undo (the sessions leave the list). Resolves with how many changed. */
export async function organize(ports: FlowPorts, ids: readonly string[], change: OrganizeChange): Promise<number> {
  try {
    const n = await ports.store.organizeSessions(ids, change);
    if (n === 0) return 0;
    if (change.archived !== undefined) {
      const undo: OrganizeChange = { archived: !change.archived };
      ports.notify.info(sentence(change, n), { action: { label: 'Undo', run: () => void ports.store.organizeSessions(ids, undo).catch((err: unknown) => ports.notify.error(errorMessage(err))) } });
    } else ports.notify.success(sentence(change, n));
    return n;
  } catch (err) {
    ports.notify.error(errorMessage(err));
    return 0;
  }
}

export async function deleteMany(ports: FlowPorts, ids: readonly string[]): Promise<number> {
  try {
    const n = await ports.store.deleteSessions(ids);
    ports.notify.success(`Deleted ${sessions(n)}`);
    return n;
  } catch (err) {
    ports.notify.error(errorMessage(err));
    return 0;
  }
}

/** The sessions in one zip (the backup's format: one JSONL per session and a manifest), saved. */
export async function exportMany(ports: FlowPorts, ids: readonly string[]): Promise<boolean> {
  try {
    const snapshots = await ports.store.exportSnapshots(ids);
    if (snapshots.length === 0) throw new Error('None of these sessions exists any more.');
    const zip = await ports.formats.exportAll(snapshots);
    const day = new Date(ports.now?.() ?? Date.now()).toISOString().slice(0, 10);
    ports.saveFile(`longctx-${snapshots.length}-sessions-${day}.zip`, zip, 'application/zip');
    ports.notify.success(`Exported ${sessions(snapshots.length)}`);
    return true;
  } catch (err) {
    ports.notify.error(`Export failed: ${errorMessage(err)}`);
    return false;
  }
}

export async function renameProject(ports: FlowPorts, from: string, to: string): Promise<number> {
  const name = normalizeProject(to);
  if (!name) return 0;
  try {
    const n = await ports.store.renameProject(from, name);
    ports.notify.success(`Renamed ${projectLabel(from)} to ${name} (${sessions(n)})`);
    return n;
  } catch (err) {
    ports.notify.error(errorMessage(err));
    return 0;
  }
}
