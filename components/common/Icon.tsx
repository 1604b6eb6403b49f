/** Small line icons drawn inline, so they render without an emoji font and follow the text colour. */
const PATHS = {
  trash: 'M3 4h10M6 4V2.5h4V4M4.5 4l.7 9.5h5.6l.7-9.5',
  pencil: 'M11 2.5l2.5 2.5L6 12.5H3.5V10z',
  image: 'M2.5 3.5h11v9h-11zM2.5 10.5l3-3 3 3 2-2 3 3',
  clip: 'M10.5 5.5l-4.5 4.5a1.5 1.5 0 002 2l5-5a3 3 0 00-4-4l-5 5a4.5 4.5 0 006 6l4-4',
  tag: 'M2.5 2.5h5l6 6-5 5-6-6zM5 5h.01',
} as const;

export function Icon({ name, label }: { name: keyof typeof PATHS; label?: string }) {
  return (
    <svg width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" aria-hidden={label ? undefined : true} role={label ? 'img' : undefined} aria-label={label} style={{ verticalAlign: '-2px' }}>
      <path d={PATHS[name]} />
    </svg>
  );
}
