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
const VERSION = 1;
const IV_BYTES = 12;

export interface SpaceKeys {
  readonly spaceId: string;
  readonly authKey: Uint8Array;
  readonly backend: CryptoBackend['name'];
  /** The opaque id of a session, as the server stores it. */
  sessionKey(sessionId: string): Promise<string>;
  /** The opaque id of an entry, unique across the space. */
  entryKey(sessionId: string, entryId: string): Promise<string>;
  /** Encrypts with a fresh random IV; `context` is authenticated, not stored (the reader supplies it again). */
  seal(plain: Uint8Array, context: string): Promise<Uint8Array>;
  /** Rejects when anything was changed: the bytes, or the context they were sealed for. */
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
  const aad = (context: string) => utf8(`${spaceId}\0${context}`);
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
      return concatBytes(Uint8Array.of(VERSION), iv, await aes.encrypt(iv, plain, aad(context)));
    },
    async open(sealed, context) {
      if (sealed.length < 1 + IV_BYTES + 16 || sealed[0] !== VERSION) throw new DecryptError('Not a sync record of a known version.');
      try {
        return await aes.decrypt(sealed.subarray(1, 1 + IV_BYTES), sealed.subarray(1 + IV_BYTES), aad(context));
      } catch {
        throw new DecryptError('A record failed its integrity check: it was changed after it was written, or belongs to another space.');
      }
    },
  };
}
