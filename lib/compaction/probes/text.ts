/**
 * Text matching for probes: what counts as "the summary says it". Written
 * apart from the summarizers on purpose (the extractive summarizer must not
 * import anything under probes/, a lint rule holds it): a probe that shares
 * the summarizer's own extraction only tests that the code agrees with itself.
 */

/** Case, markdown emphasis, quoting and code marks, and runs of whitespace do not count. */
export function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*>#|]/g, ' ')
    .replace(/(^|\s)_+|_+(?=\s|$)/g, '$1 ')
    .replace(/\s+/g, ' ')
    .trim();
}

const WORD_CHAR = /[a-z0-9_$]/;

/**
 * Whether `needle` (normalised) occurs in `hay` (normalised) as a whole token:
 * `agent` is not found inside `agentsession`, `sdk.ts` is found inside
 * `core/sdk.ts`. A needle that starts or ends with punctuation only needs the
 * boundary on its word side.
 */
export function containsTerm(hay: string, needle: string): boolean {
  if (!needle) return false;
  const headWord = WORD_CHAR.test(needle[0]!);
  const tailWord = WORD_CHAR.test(needle[needle.length - 1]!);
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + 1)) {
    const before = at > 0 ? hay[at - 1]! : ' ';
    const after = at + needle.length < hay.length ? hay[at + needle.length]! : ' ';
    if (headWord && WORD_CHAR.test(before)) continue;
    if (tailWord && WORD_CHAR.test(after)) continue;
    return true;
  }
  return false;
}

/** Words that say nothing about what a sentence is about. */
const STOP = new Set(
  (
    'about above after again against all also although always among another any anyone anything are around because been before being below ' +
    'between both but called can cannot could did does doing done down during each either else enough even ever every few first for from ' +
    'further going good great had has have having here how however into its itself just keep know last least less let like likely make many ' +
    'may maybe might more most much must need needs never next none not nothing now off often okay once one only onto other others otherwise ' +
    'our out over own perfect please probably quite rather really same seems several shall should since some something still such sure take ' +
    'than that the their them then there these they thing things think this those though through thus too under until upon use used using very ' +
    'want was way well were what whatever when where whether which while who whole why will with within without would yes yet you your ' +
    'actually already alright looks look right okay also instead check checks checking update updated now let\'s lets i\'ll we\'ll it\'s that\'s ' +
    'there\'s here\'s don\'t doesn\'t isn\'t wasn\'t can\'t won\'t didn\'t should\'ve file files code line lines change changes changed work ' +
    'works working add added adding remove removed new old fix fixed'
  ).split(/\s+/),
);

/**
 * The words of a text that carry its content, rarest-looking first (long
 * words and words with digits or code marks before short plain ones), at most
 * `max`. Used where a probe is about a sentence rather than a name: a
 * paraphrase that keeps most of them says the same thing.
 */
export function contentWords(text: string, max: number): string[] {
  const seen = new Set<string>();
  const words: string[] = [];
  for (const raw of normalise(text).replace(/[\u2018\u2019]/g, "'").split(/[^a-z0-9_$.\-/']+/)) {
    const w = raw.replace(/^[.\-/']+|[.\-/']+$/g, '');
    // Contractions ("doesn't", "haven't") say how, not what.
    if (w.length < 5 || STOP.has(w) || seen.has(w) || /^\d+$/.test(w) || w.includes("'")) continue;
    seen.add(w);
    words.push(w);
  }
  const weight = (w: string) => w.length + (/[\d_$./-]/.test(w) ? 6 : 0);
  return words
    .map((w, i) => ({ w, i }))
    .sort((a, b) => weight(b.w) - weight(a.w) || a.i - b.i)
    .slice(0, max)
    .map((x) => x.w);
}
