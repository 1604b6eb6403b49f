'use client';

import { useId, useState } from 'react';
import { DialogHeader } from './DialogHeader';
import { useModalDialog } from './useModalDialog';

/** An image shown as a thumbnail; a click opens it at full size in a dialog (Escape or Close returns). */
export function ImageThumb({ src, alt, width, height }: { src: string; alt: string; width?: number; height?: number }) {
  const [open, setOpen] = useState(false);
  const ref = useModalDialog(open);
  const id = useId();
  return (
    <>
      <button type="button" className="thumb-btn" aria-label={`View ${alt} larger`} onClick={() => setOpen(true)}>
        {/* eslint-disable-next-line @next/next/no-img-element -- data: URLs of user content; next/image cannot optimise them */}
        <img src={src} alt={alt} width={width} height={height} />
      </button>
      <dialog ref={ref} className="dialog image-viewer" aria-labelledby={id} onClose={() => setOpen(false)}>
        <DialogHeader id={id} title={alt} onClose={() => setOpen(false)} />
        <div className="dialog-body">
          {/* eslint-disable-next-line @next/next/no-img-element -- as above */}
          {open && <img src={src} alt={alt} />}
        </div>
      </dialog>
    </>
  );
}
