import type { SaveFile } from '@/lib/flows/ports';

/** Saves data as a file through a temporary object URL (works offline, no server round trip). */
export const saveFile: SaveFile = (name, data, mime) => {
  const blob = new Blob([data as BlobPart], { type: mime });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
};
