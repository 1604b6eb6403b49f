import type { SessionSnapshot } from '@/lib/session/types';
import { NATIVE_FORMAT, NATIVE_VERSION } from '../readers/native';

/**
 * The app's own format (docs/session-format.md): a header line with the
 * session's meta, then one entry per line in the snapshot's order (parents
 * before children). Reading it back with readNative gives the same snapshot.
 */
export function exportJsonl(snapshot: SessionSnapshot): string {
  const marker = { type: 'session', format: NATIVE_FORMAT, version: NATIVE_VERSION };
  // The marker goes first for a reader's eyes and last so no meta key can override it.
  const header = Object.assign({}, marker, snapshot.meta, marker);
  const lines = [JSON.stringify(header)];
  for (const e of snapshot.entries) lines.push(JSON.stringify(e));
  return lines.join('\n') + '\n';
}
