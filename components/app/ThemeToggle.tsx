'use client';

import { Monitor, Moon, Sun, type LucideIcon } from 'lucide-react';
import type { ThemePreference } from '@/lib/settings/theme';
import { useTheme } from '@/components/state/ThemeProvider';

const OPTIONS: { value: ThemePreference; label: string; icon: LucideIcon }[] = [
  { value: 'system', label: 'System', icon: Monitor },
  { value: 'light', label: 'Light', icon: Sun },
  { value: 'dark', label: 'Dark', icon: Moon },
];

/** System / Light / Dark as one radio group: arrow keys move between them, as with any radio group. */
export function ThemeToggle() {
  const { preference, setPreference } = useTheme();
  return (
    <fieldset className="segmented theme-toggle">
      <legend>Theme</legend>
      {OPTIONS.map(({ value, label, icon: Icon }) => (
        <label key={value} data-tooltip={`${label} theme`} data-tooltip-side="top">
          <input type="radio" name="theme" value={value} checked={preference === value} onChange={() => setPreference(value)} aria-label={label} />
          <Icon aria-hidden="true" className="icon" />
        </label>
      ))}
    </fieldset>
  );
}
