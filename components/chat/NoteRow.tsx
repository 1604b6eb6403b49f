'use client';

import { noteText } from '@/lib/session/notes';
import type { SessionEntry } from '@/lib/session/types';
import { clip } from '@/lib/tree/preview';

const NOTE_MAX = 200;

/**
 * A compact line in the conversation for what the model never sees as a
 * message (command notes of an imported transcript, model changes, summary
 * revisions). Its accessible name is the note itself, so it can be found by
 * role and name; a long note shows its start and keeps the whole as a tooltip.
 */
export function NoteRow({ entry, target }: { entry: SessionEntry; target?: SessionEntry }) {
  const text = noteText(entry, target);
  if (!text) return null;
  const shown = clip(text, NOTE_MAX);
  return (
    <div className="note-row" role="note" aria-label={`Note: ${shown}`} title={shown === text ? undefined : text} data-entry-id={entry.id}>
      {shown}
    </div>
  );
}
