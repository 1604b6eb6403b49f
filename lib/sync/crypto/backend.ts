import { gcm } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';

/**
 * The primitives sync needs, from one of two implementations that produce the
 * same bytes: WebCrypto (native, fast) and @noble (audited pure JS). WebCrypto
 * exists only in secure contexts (https, localhost): a phone that opens the app
 * at http://192.168.1.20:3000 has `crypto.getRandomValues` but no
 * `crypto.subtle`, and must still read and write the same ciphertext.
 */
export interface CryptoBackend {
  readonly name: 'webcrypto' | 'noble';
  hkdf(ikm: Uint8Array, salt: Uint8Array, info: string, length: number): Promise<Uint8Array>;
  sha256(data: Uint8Array): Promise<Uint8Array>;
  /** An HMAC-SHA-256 function under `key` (the key is imported once). */
  hmacSha256(key: Uint8Array): Promise<(data: Uint8Array) => Promise<Uint8Array>>;
  /** AES-256-GCM with a 96-bit IV and a 128-bit tag appended to the ciphertext. */
  aesGcm(key: Uint8Array): Promise<AesGcm>;
}

export interface AesGcm {
  encrypt(iv: Uint8Array, plain: Uint8Array, aad: Uint8Array): Promise<Uint8Array>;
  /** Rejects when the tag does not verify (tampered data, wrong key, wrong AAD). */
  decrypt(iv: Uint8Array, sealed: Uint8Array, aad: Uint8Array): Promise<Uint8Array>;
}

const enc = new TextEncoder();
// WebCrypto's typings want ArrayBuffer-backed views; ours always are.
const buf = (b: Uint8Array) => b as Uint8Array<ArrayBuffer>;

export function webCryptoBackend(subtle: SubtleCrypto): CryptoBackend {
  return {
    name: 'webcrypto',
    async hkdf(ikm, salt, info, length) {
      const key = await subtle.importKey('raw', buf(ikm), 'HKDF', false, ['deriveBits']);
      const bits = await subtle.deriveBits({ name: 'HKDF', hash: 'SHA-256', salt: buf(salt), info: enc.encode(info) }, key, length * 8);
      return new Uint8Array(bits);
    },
    async sha256(data) {
      return new Uint8Array(await subtle.digest('SHA-256', buf(data)));
    },
    async hmacSha256(key) {
      const k = await subtle.importKey('raw', buf(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      return async (data) => new Uint8Array(await subtle.sign('HMAC', k, buf(data)));
    },
    async aesGcm(key) {
      const k = await subtle.importKey('raw', buf(key), 'AES-GCM', false, ['encrypt', 'decrypt']);
      return {
        encrypt: async (iv, plain, aad) => new Uint8Array(await subtle.encrypt({ name: 'AES-GCM', iv: buf(iv), additionalData: buf(aad) }, k, buf(plain))),
        decrypt: async (iv, sealed, aad) => new Uint8Array(await subtle.decrypt({ name: 'AES-GCM', iv: buf(iv), additionalData: buf(aad) }, k, buf(sealed))),
      };
    },
  };
}

export const nobleBackend: CryptoBackend = {
  name: 'noble',
  hkdf: async (ikm, salt, info, length) => hkdf(sha256, ikm, salt, enc.encode(info), length),
  sha256: async (data) => sha256(data),
  hmacSha256: async (key) => async (data) => hmac(sha256, key, data),
  aesGcm: async (key) => ({
    encrypt: async (iv, plain, aad) => gcm(key, iv, aad).encrypt(plain),
    decrypt: async (iv, sealed, aad) => gcm(key, iv, aad).decrypt(sealed),
  }),
};

/** WebCrypto when this context has it, @noble otherwise. */
export function defaultBackend(): CryptoBackend {
  const subtle = (globalThis.crypto as Crypto | undefined)?.subtle;
  return subtle ? webCryptoBackend(subtle) : nobleBackend;
}
