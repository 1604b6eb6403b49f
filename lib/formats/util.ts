import type { ImagePart, TextPart, Timestamp } from '@/lib/session/types';
import { oneLine } from '@/lib/session/messages';

/** Narrowing helpers for untrusted JSON: they return undefined instead of throwing. */

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

export function arr(v: unknown): unknown[] | undefined {
  return Array.isArray(v) ? v : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A finite number, also from numeric strings (LibreChat writes some counts as strings). */
export function numLike(v: unknown): number | undefined {
  if (typeof v === 'string' && v.trim() !== '') return num(Number(v));
  return num(v);
}

export function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

/** ISO strings, epoch milliseconds or epoch seconds (ChatGPT) to milliseconds; undefined when unusable. */
export function toMs(v: unknown, unit: 'ms' | 's' = 'ms'): Timestamp | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.round(unit === 's' ? v * 1000 : v);
  if (typeof v === 'string' && v.trim() !== '') {
    const t = Date.parse(v);
    if (Number.isFinite(t)) return t;
  }
  return undefined;
}

/** Drops keys whose value is undefined, so snapshots deep-equal their JSON round trip. */
export function compact<T extends object>(o: T): T {
  for (const k of Object.keys(o) as (keyof T)[]) if (o[k] === undefined) delete o[k];
  return o;
}

export function textPart(text: string): TextPart {
  return { type: 'text', text };
}

/** Decoded size of a base64 payload, for token estimates of images we never decode. */
export function base64ByteLength(b64: string): number {
  let len = b64.length;
  while (len > 0 && (b64.charCodeAt(len - 1) === 0x3d /* = */ || b64.charCodeAt(len - 1) <= 0x20)) len--;
  return Math.floor((len * 3) / 4);
}

/** An embedded image, with `data:` prefixes stripped and its size noted. */
export function base64Image(data: string, mimeType: string | undefined): ImagePart {
  let payload = data;
  let mime = mimeType;
  const m = /^data:([^;,]+)?(;base64)?,/.exec(data);
  if (m) {
    payload = data.slice(m[0].length);
    mime = mime ?? m[1];
  }
  return { type: 'image', mimeType: mime || 'image/png', data: payload, byteLength: base64ByteLength(payload) };
}

/** Title from free text: markup-ish tags dropped, one line, bounded. */
export function titleFrom(text: string | undefined, fallback: string): string {
  if (!text) return fallback;
  const t = oneLine(text.replace(/<[^>\n]{1,80}>/g, ' '), 80);
  return t || fallback;
}

/** File name without directories and extension. */
export function baseName(fileName: string | undefined): string | undefined {
  if (!fileName) return undefined;
  const b = fileName.split(/[\\/]/).pop() ?? fileName;
  return b.replace(/\.[^.]+$/, '') || b;
}

/** Strips ANSI escape sequences (Claude Code hook output is coloured). */
export function stripAnsi(s: string): string {
  return s.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
}

export function jsonText(v: unknown): string {
  try {
    return typeof v === 'string' ? v : (JSON.stringify(v, null, 2) ?? String(v));
  } catch {
    return String(v);
  }
}
