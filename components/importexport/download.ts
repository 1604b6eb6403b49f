'use client';

/** Saves data as a file through a temporary object URL (works offline, no server round trip). */
export function downloadFile(name: string, data: string | Uint8Array, mime: string) {
  const blob = new Blob([data as BlobPart], { type: mime });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name from a session title: letters, digits, dashes; never empty. */
export function safeFileName(title: string, ext: string): string {
  const base = title.normalize('NFKD').replace(/[^\w\- ]+/g, '').trim().replace(/\s+/g, '-').slice(0, 60) || 'session';
  return `${base}.${ext}`;
}
