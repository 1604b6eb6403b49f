import { bucketFor } from '../padding';
import { concatBytes, randomBytes, toBase64Url, utf8 } from './bytes';
import { defaultBackend, type AesGcm, type CryptoBackend } from './backend';

/**
 * Everything a device needs to take part in a space, derived from the sync code
 * with HKDF-SHA-256 (one salt, a different `info` per key, so knowing one key
 * tells nothing about another):
 *
 * - `spaceId`: names the space on the server (public, like a user name).
 * - `authKey`: proves knowledge of the code when creating the space or adding a
 *   device; the server keeps only its SHA-256 (`authVerifier`).
 * - the encryption key: AES-256-GCM over every record's content.
 * - the id key: HMAC-SHA-256 of session and entry ids, so the server sees
 *   stable opaque ids (what idempotent pushes need) and never the real ones.
 */
const SALT = utf8('longctx-sync/v1');
const IV_BYTES = 12;
const TAG_BYTES = 16;
/**
 * Sealed layouts, told apart by their first byte:
 * - 1: `1 ‖ IV ‖ AES-GCM(plain)`, unpadded (written until padding came; still read).
 * - 2: `2 ‖ IV ‖ AES-GCM(length (u32, big-endian) ‖ plain ‖ zeros)`, padded so the whole is one of
 *   the sizes of ../padding.ts. Its authenticated data names the version, so a server that
 *   rewrites the first byte makes the record fail to open rather than be read the other way.
 */
const V1 = 1;
const V2 = 2;
const HEADER_BYTES = 1 + IV_BYTES;
const LENGTH_BYTES = 4;
/** What a v2 record adds to its content: version, IV, length and tag. */
export const SEAL_OVERHEAD = HEADER_BYTES + LENGTH_BYTES + TAG_BYTES;

/** The size of the sealed (v2) record holding `plainBytes` bytes: what the server sees. */
export const sealedSize = (plainBytes: number) => bucketFor(plainBytes + SEAL_OVERHEAD);

export interface SpaceKeys {
  readonly spaceId: string;
  readonly authKey: Uint8Array;
  readonly backend: CryptoBackend['name'];
  /** The opaque id of a session, as the server stores it. */
  sessionKey(sessionId: string): Promise<string>;
  /** The opaque id of an entry, unique across the space. */
  entryKey(sessionId: string, entryId: string): Promise<string>;
  /** Pads (to a size bucket) and encrypts with a fresh random IV; `context` is authenticated, not stored (the reader supplies it again). */
  seal(plain: Uint8Array, context: string): Promise<Uint8Array>;
  /** Rejects when anything was changed: the bytes, or the context they were sealed for. Reads both layouts (padded or not). */
  open(sealed: Uint8Array, context: string): Promise<Uint8Array>;
}

export class DecryptError extends Error {
  override name = 'DecryptError';
}

export async function authVerifierOf(authKey: Uint8Array, backend: CryptoBackend = defaultBackend()): Promise<string> {
  return toBase64Url(await backend.sha256(authKey));
}

export async function deriveSpaceKeys(code: Uint8Array, backend: CryptoBackend = defaultBackend()): Promise<SpaceKeys> {
  const [space, authKey, encKey, idKey] = await Promise.all([
    backend.hkdf(code, SALT, 'space-id', 16),
    backend.hkdf(code, SALT, 'auth', 32),
    backend.hkdf(code, SALT, 'encryption', 32),
    backend.hkdf(code, SALT, 'opaque-ids', 32),
  ]);
  const spaceId = toBase64Url(space);
  const mac = await backend.hmacSha256(idKey);
  const aes: AesGcm = await backend.aesGcm(encKey);
  // The space id is part of every authenticated context: a record copied from one space into another does not open.
  const aad = (version: number, context: string) => utf8(version === V1 ? `${spaceId}\0${context}` : `${spaceId}\0${context}\0v${version}`);
  const opaque = async (parts: string[]) => toBase64Url((await mac(utf8(parts.join('\0')))).subarray(0, 16));
  // Every entry record names its session: one HMAC per session, not per entry.
  const sessionKeys = new Map<string, Promise<string>>();
  return {
    spaceId,
    authKey,
    backend: backend.name,
    sessionKey(sessionId) {
      let key = sessionKeys.get(sessionId);
      if (!key) sessionKeys.set(sessionId, (key = opaque(['session', sessionId])));
      return key;
    },
    entryKey: (sessionId, entryId) => opaque(['entry', sessionId, entryId]),
    async seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      // Zero-filled: the bytes after the content are the padding.
      const inner = new Uint8Array(sealedSize(plain.length) - HEADER_BYTES - TAG_BYTES);
      new DataView(inner.buffer).setUint32(0, plain.length);
      inner.set(plain, LENGTH_BYTES);
      return concatBytes(Uint8Array.of(V2), iv, await aes.encrypt(iv, inner, aad(V2, context)));
    },
    async open(sealed, context) {
      const version = sealed[0];
      if (sealed.length < HEADER_BYTES + TAG_BYTES || (version !== V1 && version !== V2)) throw new DecryptError('Not a sync record of a known version.');
      let inner: Uint8Array;
      try {
        inner = await aes.decrypt(sealed.subarray(1, HEADER_BYTES), sealed.subarray(HEADER_BYTES), aad(version, context));
      } catch {
        throw new DecryptError('A record failed its integrity check: it was changed after it was written, or belongs to another space.');
      }
      if (version === V1) return inner;
      // Authentic, so written by a device of the space: a bad length or padding is a bug there, not tampering, but is refused all the same.
      const length = inner.length >= LENGTH_BYTES ? new DataView(inner.buffer, inner.byteOffset, inner.byteLength).getUint32(0) : -1;
      if (length < 0 || length > inner.length - LENGTH_BYTES || inner.subarray(LENGTH_BYTES + length).some((b) => b !== 0)) {
        throw new DecryptError('A record’s padding is malformed.');
      }
      return inner.subarray(LENGTH_BYTES, LENGTH_BYTES + length);
    },
  };
}
