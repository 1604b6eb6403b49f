'use client';

import { useState } from 'react';
import { useModalDialog } from '@/components/common/useModalDialog';

export type LeaveChoice = { kind: 'switch' } | { kind: 'summarize'; instructions?: string };

/** Asked when a move in the tree leaves a branch: switch, summarise it, or summarise with instructions. */
export function LeaveBranchDialog({ onChoose, onCancel }: { onChoose: (c: LeaveChoice, dontAskAgain: boolean) => void; onCancel: () => void }) {
  const ref = useModalDialog();
  const [withInstructions, setWithInstructions] = useState(false);
  const [instructions, setInstructions] = useState('');
  const [dontAsk, setDontAsk] = useState(false);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="leave-title"
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <h2 id="leave-title">Leave this branch?</h2>
      <p>The messages after the branch point stay in the tree. A summary of them can follow you to the new position, so the model knows what was tried there.</p>
      {withInstructions && (
        <label className="field">
          <span>Summary instructions</span>
          <textarea rows={3} autoFocus value={instructions} onChange={(e) => setInstructions(e.target.value)} placeholder="e.g. Focus on why the first approach failed" />
        </label>
      )}
      <label className="check">
        <input type="checkbox" checked={dontAsk} onChange={(e) => setDontAsk(e.target.checked)} /> Don’t ask again
      </label>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="btn" onClick={() => onChoose({ kind: 'switch' }, dontAsk)}>
          Switch without summary
        </button>
        {withInstructions ? (
          <button type="button" className="btn primary" onClick={() => onChoose({ kind: 'summarize', instructions: instructions.trim() || undefined }, false)}>
            Summarize with these instructions
          </button>
        ) : (
          <>
            <button type="button" className="btn" onClick={() => setWithInstructions(true)}>
              Summarize with instructions…
            </button>
            <button type="button" className="btn primary" onClick={() => onChoose({ kind: 'summarize' }, dontAsk)}>
              Summarize branch
            </button>
          </>
        )}
      </div>
    </dialog>
  );
}
