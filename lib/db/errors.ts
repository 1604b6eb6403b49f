/**
 * Storage failures the UI can explain. Dexie reports them by `name`; we map the
 * ones a user can act on to a kind and a sentence. Every write runs in one
 * transaction, so when any of these is thrown nothing of that write landed.
 */
export type StorageErrorKind = 'quota' | 'unavailable' | 'version' | 'conflict' | 'unknown';

export class StorageError extends Error {
  constructor(
    readonly kind: StorageErrorKind,
    message: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

function errorName(err: unknown): string {
  if (!err || typeof err !== 'object') return '';
  const e = err as { name?: string; inner?: unknown };
  // Dexie wraps the DOMException: the interesting name may be one level down.
  if (e.name === 'AbortError' && e.inner) return errorName(e.inner) || e.name;
  return e.name ?? '';
}

export function toStorageError(err: unknown): StorageError {
  if (err instanceof StorageError) return err;
  const name = errorName(err);
  if (name === 'QuotaExceededError')
    return new StorageError('quota', 'Browser storage is full: this change was not saved. Export and delete old sessions, or allow more storage for this site, then try again. Nothing saved earlier was lost.', err);
  if (name === 'MissingAPIError' || name === 'InvalidStateError' || name === 'OpenFailedError' || name === 'DatabaseClosedError')
    return new StorageError('unavailable', 'This browser is not letting the app use IndexedDB (private mode or disabled site data?). Sessions cannot be saved here.', err);
  if (name === 'VersionError' || name === 'UpgradeError')
    return new StorageError('version', 'The saved data was written by a newer version of this app. Reload after updating, or use the newer version.', err);
  if (name === 'ConstraintError')
    return new StorageError('conflict', 'Another tab wrote the same entry at the same time; reload to see the latest state.', err);
  const message = err instanceof Error ? err.message : String(err);
  return new StorageError('unknown', `Saving failed: ${message}`, err);
}

/** Runs a storage operation and rethrows failures as StorageError. */
export async function guarded<T>(op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    throw toStorageError(err);
  }
}
