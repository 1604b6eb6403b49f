'use client';

import { X } from 'lucide-react';
import { IconButton } from './IconButton';

/** A dialog's title row: the heading that names it (aria-labelledby) and a close button. */
export function DialogHeader({ id, title, onClose, closeLabel = 'Close' }: { id: string; title: string; onClose?: () => void; closeLabel?: string }) {
  return (
    <div className="dialog-head">
      <h2 id={id}>{title}</h2>
      {onClose && <IconButton icon={X} label={closeLabel} onClick={onClose} tooltipSide="bottom" />}
    </div>
  );
}
