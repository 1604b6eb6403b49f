import { newId } from '@/lib/session/ids';
import { formatHlc, receive, tick, type Hlc } from '@/lib/sync/hlc';
import type { AppDB } from './db';
import type { StoredEntry } from './schema';

/**
 * What every local write records for sync, whether or not this browser is in
 * a sync space (joining later pushes everything, see sync.ts): the entry is
 * marked unsynced, the session marked dirty, and a metadata change gets a
 * hybrid logical clock from this database's clock. Must run inside the
 * write's transaction, with `syncState` in its scope.
 */
const CLOCK = 'clock';

async function readClock(db: AppDB): Promise<Hlc | null> {
  return ((await db.syncState.get(CLOCK))?.value as Hlc | undefined) ?? null;
}

/** The clock of a local metadata change. */
export async function nextLocalHlc(db: AppDB, now = Date.now()): Promise<string> {
  const last = await readClock(db);
  const next = tick(last, now, last?.node ?? newId(16));
  await db.syncState.put({ key: CLOCK, value: next });
  return formatHlc(next);
}

/** Moves this database's clock past a remote one, so the next local change is later than it. */
export async function observeRemoteHlc(db: AppDB, remote: Hlc, now = Date.now()): Promise<void> {
  const last = await readClock(db);
  await db.syncState.put({ key: CLOCK, value: receive(last, remote, now, last?.node ?? newId(16)) });
}

export const unsynced = (row: StoredEntry): StoredEntry => ({ ...row, unsynced: 1 });

/** sync.ts's records of the space this browser is in, and of a join in progress. */
export const SPACE_KEY = 'space';
export const JOINING_KEY = 'joining';

/**
 * Whether entries written now must be marked for pushing. Outside a sync
 * space a mark is only a cost, two index writes per entry (`unsynced`,
 * `[sessionId+unsynced]`), which bulk imports can skip: joining marks
 * everything stored (sync.ts saveSpace). Must run in the write's own
 * transaction with `syncState` in its scope, and a join counts from its
 * start: saveSpace records `joining` before it marks, so a write that saw
 * neither record committed before the marking began, and the marking covers it.
 */
export async function entriesNeedMarks(db: AppDB): Promise<boolean> {
  const [inSpace, joining] = await db.syncState.bulkGet([SPACE_KEY, JOINING_KEY]);
  return inSpace !== undefined || joining !== undefined;
}
