'use client';

import './keyboard.css';
import { Fragment } from 'react';
import { comboKeys, SHORTCUTS } from '@/lib/keyboard/shortcuts';
import { useModalDialog } from '@/components/common/useModalDialog';

/** Every shortcut, as this platform writes it (⌘ on a Mac, Ctrl elsewhere). */
export function ShortcutsDialog({ open, mac, onClose }: { open: boolean; mac: boolean; onClose: () => void }) {
  const ref = useModalDialog(open);
  return (
    <dialog ref={ref} className="dialog shortcuts-dialog" aria-labelledby="shortcuts-title" onClose={onClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <table className="shortcuts-table">
        <thead>
          <tr>
            <th scope="col">Action</th>
            <th scope="col">Keys</th>
          </tr>
        </thead>
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.id}>
              <th scope="row">
                {s.label}
                {s.note && <span className="muted small"> ({s.note})</span>}
              </th>
              <td>
                {s.combos.map((c, i) => (
                  <Fragment key={i}>
                    {i > 0 && <span className="muted small"> or </span>}
                    <kbd>
                      {comboKeys(c, mac).map((k, j) => (
                        <Fragment key={k}>
                          {j > 0 && !mac && '+'}
                          <kbd>{k}</kbd>
                        </Fragment>
                      ))}
                    </kbd>
                  </Fragment>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onClose}>
          Close
        </button>
      </div>
    </dialog>
  );
}
