'use client';

import { useEffect, useState } from 'react';
import QRCode from 'qrcode';
import { joinLink } from '@/lib/sync/crypto/code';

/**
 * The sync code as 12 numbered words and as a QR code. The QR code is a link
 * to this app with the words in the fragment: a phone's camera app opens it,
 * and the app offers to join (the fragment never reaches the server).
 */
export function SyncCode({ words }: { words: string }) {
  const [qr, setQr] = useState<string | null>(null);
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  const link = joinLink(origin, words);
  useEffect(() => {
    let live = true;
    void QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }).then((svg) => live && setQr(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`));
    return () => {
      live = false;
    };
  }, [link]);
  const local = /^https?:\/\/(localhost|127\.|\[::1\])/.test(origin);
  return (
    <div className="sync-code">
      <ol className="sync-words" aria-label="Sync code">
        {words.split(' ').map((w, i) => (
          <li key={i}>{w}</li>
        ))}
      </ol>
      {/* eslint-disable-next-line @next/next/no-img-element -- an SVG made here as a data: URL; next/image has nothing to optimise */}
      {qr && <img className="sync-qr" src={qr} width={180} height={180} alt={`QR code: a link to ${origin} that joins this sync space`} />}
      <p className="muted small">
        Anyone with these words can read and change your synced sessions: show them only on your own devices.
        {local && ' The QR code links to this computer’s local address; for a phone, open this page at the computer’s network address (see the README) and show the code there.'}
      </p>
    </div>
  );
}
