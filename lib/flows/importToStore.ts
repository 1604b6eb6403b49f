import type { FormatsPort, ImportFileOptions, ImportProgress, StoredImport } from './ports';

/**
 * One file through the formats worker, its progress reported until the result is in. The worker
 * sends progress through a callback proxy and the result on another message port, so a report can
 * arrive after the result; passed on, it would bring back the progress of an import that is done.
 */
export async function importToStore(
  formats: FormatsPort,
  file: Blob,
  fileName: string,
  opts: ImportFileOptions,
  onProgress: (p: ImportProgress) => void,
): Promise<StoredImport> {
  let settled = false;
  try {
    return await formats.importFileToStore(file, fileName, opts, (p) => {
      if (!settled) onProgress(p);
    });
  } finally {
    settled = true;
  }
}
