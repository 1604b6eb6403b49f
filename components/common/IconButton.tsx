'use client';

import type { LucideIcon } from 'lucide-react';
import { forwardRef, type ButtonHTMLAttributes } from 'react';

type Props = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'aria-label' | 'children'> & {
  icon: LucideIcon;
  /** The accessible name, and the tooltip unless `tooltip` says otherwise. */
  label: string;
  tooltip?: string;
  /** Where the tooltip opens: below suits a top bar, above suits a message's action row. */
  tooltipSide?: 'top' | 'bottom';
  /** Also show the label as text next to the icon (it stays the accessible name when hidden on narrow screens). */
  text?: 'always' | 'wide';
  variant?: 'ghost' | 'outline' | 'primary' | 'danger';
  size?: 'sm' | 'md';
};

/**
 * A button that is an icon: its name is `label` (screen readers, tests by role
 * and name) and the same words show as a tooltip on hover and keyboard focus.
 */
export const IconButton = forwardRef<HTMLButtonElement, Props>(function IconButton(
  { icon: Icon, label, tooltip = label, tooltipSide = 'bottom', text, variant = 'ghost', size = 'md', className, type = 'button', ...rest },
  ref,
) {
  const classes = ['icon-btn', `icon-btn-${variant}`, size === 'sm' ? 'icon-btn-sm' : '', text ? `with-text text-${text}` : '', className ?? ''].filter(Boolean).join(' ');
  return (
    <button ref={ref} type={type} className={classes} aria-label={label} data-tooltip={text === 'always' ? undefined : tooltip} data-tooltip-side={tooltipSide} {...rest}>
      <Icon aria-hidden="true" className="icon" strokeWidth={1.9} />
      {text && (
        <span className="btn-text" aria-hidden="true">
          {label}
        </span>
      )}
    </button>
  );
});
