/**
 * Reading a request body with a size cap. Content-Length is only a hint (it
 * can be absent or wrong), so the stream itself is counted and abandoned as
 * soon as it passes the cap: a 2 GB upload costs us at most the cap.
 */

import { readCappedBytes } from '@/lib/http/cappedBody';

export const MB = 1024 * 1024;

export const JSON_REQUIRED = 'Request body must be JSON, sent with Content-Type: application/json.';

/**
 * JSON bodies must say so. text/plain (what a form or a no-cors fetch from
 * another site can send without a CORS preflight) is not accepted as JSON.
 */
export function isJsonContentType(value: string | null): boolean {
  return /^application\/json\s*(?:;|$)/i.test(value ?? '');
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; status: 400 | 413 | 415; message: string };

export async function readJsonBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const tooLarge = { ok: false as const, status: 413 as const, message: `Request body exceeds the limit of ${Math.round(maxBytes / MB)} MB.` };
  const declared = request.headers.get('content-length');
  if (declared && Number(declared) > maxBytes) return tooLarge;

  if (!isJsonContentType(request.headers.get('content-type'))) {
    return { ok: false, status: 415, message: JSON_REQUIRED };
  }

  if (!request.body) return { ok: false, status: 400, message: 'Request body is empty; expected JSON.' };
  const bytes = await readCappedBytes(request.body, maxBytes);
  if (!bytes) return tooLarge;
  const text = new TextDecoder().decode(bytes);
  if (!text.trim()) return { ok: false, status: 400, message: 'Request body is empty; expected JSON.' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, status: 400, message: 'Request body is not valid JSON.' };
  }
}
