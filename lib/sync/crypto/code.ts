import { entropyToMnemonic, mnemonicToEntropy } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { randomBytes } from './bytes';

/**
 * The sync code: 128 random bits, shown as 12 words of the BIP-39 English list
 * (11 bits each, the last 4 bits a checksum). Words survive being read aloud and
 * typed on a phone; the checksum catches 15 of 16 typos before anything is
 * sent. Every key of the space derives from these 16 bytes (keys.ts).
 */
export const CODE_BYTES = 16;
export const CODE_WORDS = 12;

export class SyncCodeError extends Error {
  override name = 'SyncCodeError';
}

export function newSyncCode(): Uint8Array {
  return randomBytes(CODE_BYTES);
}

export function codeToWords(code: Uint8Array): string {
  if (code.length !== CODE_BYTES) throw new SyncCodeError(`A sync code has ${CODE_BYTES} bytes.`);
  return entropyToMnemonic(code, wordlist);
}

const WORDS = new Set(wordlist);

/** Reads typed or scanned words: any case, any spacing or punctuation between words. Throws a SyncCodeError that says what is wrong. */
export function wordsToCode(text: string): Uint8Array {
  const words = text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
  if (words.length === 0) throw new SyncCodeError('Enter the 12 words of the sync code.');
  const unknown = words.filter((w) => !WORDS.has(w));
  if (unknown.length) throw new SyncCodeError(`Not a word of the sync code: “${unknown[0]}”. Check the spelling.`);
  if (words.length !== CODE_WORDS) throw new SyncCodeError(`A sync code has ${CODE_WORDS} words; this has ${words.length}.`);
  try {
    return mnemonicToEntropy(words.join(' '), wordlist);
  } catch {
    throw new SyncCodeError('These words are not a valid sync code (a word is wrong or out of order).');
  }
}

/**
 * What the QR code carries: a link to this app with the words in the fragment.
 * A phone's camera app opens it in the browser; the fragment never leaves the
 * phone (browsers do not send it to the server), and the app removes it from
 * the address bar as soon as it has read it.
 */
export const JOIN_FRAGMENT = 'sync-join=';

export function joinLink(origin: string, words: string): string {
  return `${origin}/#${JOIN_FRAGMENT}${words.split(' ').join('-')}`;
}

/** The words in a join link's fragment (`#sync-join=a-b-c`), or null. */
export function wordsFromFragment(hash: string): string | null {
  const h = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!h.startsWith(JOIN_FRAGMENT)) return null;
  return decodeURIComponent(h.slice(JOIN_FRAGMENT.length)).split('-').join(' ');
}
