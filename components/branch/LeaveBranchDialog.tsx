'use client';

import './branch.css';
import { ArrowRightLeft, GitBranch, MessageSquareText } from 'lucide-react';
import { useId, useState } from 'react';
import { useModalDialog } from '@/components/common/useModalDialog';

export type LeaveChoice = { kind: 'switch' } | { kind: 'summarize'; instructions?: string };

/**
 * Asked when a move in the tree leaves a branch: switch, summarise it, or
 * summarise with instructions. The three choices are stacked full-width
 * buttons with a line of explanation each, so they fit a phone and every
 * label reads whole; Cancel stays at the bottom.
 */
export function LeaveBranchDialog({ onChoose, onCancel }: { onChoose: (c: LeaveChoice, dontAskAgain: boolean) => void; onCancel: () => void }) {
  const ref = useModalDialog();
  const id = useId();
  const [withInstructions, setWithInstructions] = useState(false);
  const [instructions, setInstructions] = useState('');
  const [dontAsk, setDontAsk] = useState(false);
  return (
    <dialog
      ref={ref}
      className="dialog leave-branch"
      aria-labelledby={id}
      onCancel={(e) => {
        e.preventDefault();
        onCancel();
      }}
    >
      <div className="dialog-head">
        <h2 id={id}>Leave this branch?</h2>
      </div>
      <div className="dialog-body">
        <p className="muted">The messages after the branch point stay in the tree. A summary of them can follow you to the new position, so the model knows what was tried there.</p>
        {withInstructions ? (
          <>
            <label className="field">
              <span>Summary instructions</span>
              <textarea rows={3} autoFocus value={instructions} onChange={(e) => setInstructions(e.target.value)} placeholder="e.g. Focus on why the first approach failed" />
            </label>
            <button type="button" className="btn primary" onClick={() => onChoose({ kind: 'summarize', instructions: instructions.trim() || undefined }, false)}>
              Summarize with these instructions
            </button>
          </>
        ) : (
          <div className="leave-choices">
            <button type="button" className="choice primary" onClick={() => onChoose({ kind: 'summarize' }, dontAsk)}>
              <GitBranch aria-hidden="true" className="icon" />
              <span className="choice-name">Summarize branch</span>
            </button>
            <button type="button" className="choice" onClick={() => setWithInstructions(true)}>
              <MessageSquareText aria-hidden="true" className="icon" />
              <span className="choice-name">Summarize with instructions…</span>
            </button>
            <button type="button" className="choice" onClick={() => onChoose({ kind: 'switch' }, dontAsk)}>
              <ArrowRightLeft aria-hidden="true" className="icon" />
              <span className="choice-name">Switch without summary</span>
            </button>
          </div>
        )}
        <label className="check">
          <input type="checkbox" checked={dontAsk} onChange={(e) => setDontAsk(e.target.checked)} /> Don’t ask again
        </label>
      </div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
