'use client';

import { useRef } from 'react';

/**
 * Inline label input inside a tree row. Keys typed here never reach the
 * tree's keyboard model (the row's handler skips events from
 * [data-tree-editor]), so letters do not turn into a text filter.
 */
export function LabelEditor({
  current,
  onSave,
  onCancel,
}: {
  current: string | undefined;
  /** The new label, or null to clear it. */
  onSave: (label: string | null) => void;
  onCancel: (restoreFocus: boolean) => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const root = useRef<HTMLSpanElement>(null);

  const save = () => {
    const value = input.current?.value.trim() ?? '';
    onSave(value ? value : null);
  };

  return (
    // A container, not a control: it only keeps clicks inside the editor from reaching the row (which would select it).
    // eslint-disable-next-line jsx-a11y/click-events-have-key-events, jsx-a11y/no-static-element-interactions
    <span
      ref={root}
      className="stree-editor"
      data-tree-editor=""
      onClick={(e) => e.stopPropagation()}
      onBlur={(e) => {
        // Leaving the editor for something outside it abandons the edit; moving between its own controls does not.
        const next = e.relatedTarget as Node | null;
        if (next && root.current?.contains(next)) return;
        if (next) onCancel(false);
      }}
    >
      <input
        ref={input}
        className="stree-editor-input"
        aria-label="Label"
        defaultValue={current ?? ''}
        maxLength={200}
        autoFocus
        onFocus={(e) => e.currentTarget.select()}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            save();
          } else if (e.key === 'Escape') {
            e.preventDefault();
            onCancel(true);
          }
        }}
      />
      <button type="button" className="stree-editor-btn" onClick={save}>
        Save
      </button>
      {current !== undefined && (
        <button type="button" className="stree-editor-btn" onClick={() => onSave(null)}>
          Clear label
        </button>
      )}
      <button type="button" className="stree-editor-btn" onClick={() => onCancel(true)}>
        Cancel
      </button>
    </span>
  );
}
