import type { SummaryPurpose } from './types';

/**
 * What a model sends back is not yet a summary. It may open with the private
 * scratchpad it was asked for (removed here: it is working notes, and it
 * would double the summary's size), wrap the summary in <summary> tags, or
 * not be a summary at all: small local models echo the request ("Stub reply
 * to: …", our own <conversation> framing) or answer the conversation instead
 * of summarising it. Such text must never be stored as a summary.
 */

const ANALYSIS = /<analysis>[\s\S]*?(?:<\/analysis>|$)/gi;
const SUMMARY_OPEN = /<summary>/i;
const SUMMARY_CLOSE = /<\/summary>/i;

/**
 * The summary inside a model's answer: scratchpad removed, <summary> tags
 * unwrapped. Only the wrapper the request asked for is unwrapped (at the
 * start, or after a scratchpad): a summary that mentions a `<summary>` tag in
 * its text keeps it.
 */
export function cleanModelSummary(text: string): string {
  const withoutAnalysis = text.replace(ANALYSIS, '');
  const hadAnalysis = withoutAnalysis !== text;
  let t = withoutAnalysis;
  const open = SUMMARY_OPEN.exec(t);
  if (open && (hadAnalysis || t.slice(0, open.index).trim() === '')) {
    t = t.slice(open.index + open[0].length);
    const close = SUMMARY_CLOSE.exec(t);
    if (close) t = t.slice(0, close.index);
  }
  return t.trim();
}

export type OutputFlaw = 'echo' | 'unstructured';

/** The tags the app frames a request with; a summary that carries them copied the request. */
const FRAMING = /<\/?(?:conversation|previous-summary|analysis|summary|read-files|modified-files)(?:\s[^>]*)?>/i;

/** Section names each kind of request asks for (prompts.ts); matched by their first word(s), case-insensitively. */
const EXPECTED: Record<'summary' | 'turn-prefix', readonly string[]> = {
  summary: ['goal', 'constraints', 'task list', 'progress', 'current work', 'files', 'errors', 'decisions', 'key decisions', 'findings', 'next step', 'outcome', 'critical context'],
  'turn-prefix': ['original request', 'early progress', 'context for the rest'],
};

/** Headings a model may write for a section: `## Goal`, `**Goal**`, `**Goal**: …` or `Goal: …` at the start of a line. */
const HEADING = /^(?:#{1,4}\s+|\*\*)?([A-Za-z][A-Za-z &/-]{1,40}?)(?:\*\*)?(?::|\s*$)/gm;

function sectionsFound(text: string, expected: readonly string[]): number {
  const found = new Set<string>();
  for (const m of text.matchAll(HEADING)) {
    const name = m[1]!.trim().toLowerCase();
    for (const e of expected) if (name.startsWith(e)) found.add(e);
  }
  return found.size;
}

function squash(s: string): string {
  return s.toLowerCase().replace(/\s+/g, ' ').trim();
}

/**
 * Why a model's (cleaned) answer is not a summary, or null when it is one.
 * An echo: it carries our framing tags, opens with a passage copied from the
 * request, or is mostly lines copied from it (a summary quotes a request or
 * an error, it is not made of them). Unstructured: none of the sections the
 * request asked for, which is what a model that ignored the task writes (a
 * reply to the conversation, a paragraph of chat). A summary that kept only
 * some sections is still used: the extractive one would say less.
 */
export function outputFlaw(text: string, prompt: string, purpose: SummaryPurpose): OutputFlaw | null {
  if (FRAMING.test(text)) return 'echo';
  const body = squash(text);
  const request = squash(prompt);
  const opening = body.slice(0, 120);
  if (opening.length >= 60 && request.includes(opening)) return 'echo';
  const lines = text.split('\n').map((l) => squash(l.replace(/^[>\-*\s#]+/, ''))).filter((l) => l.length >= 40);
  const copied = lines.filter((l) => request.includes(l)).reduce((a, l) => a + l.length, 0);
  const total = lines.reduce((a, l) => a + l.length, 0);
  if (total > 0 && copied / total > 0.6) return 'echo';
  if (purpose === 'self-check') return null;
  // A turn's prefix written with the general sections is still a summary of it.
  const expected = purpose === 'turn-prefix' ? [...EXPECTED['turn-prefix'], ...EXPECTED.summary] : EXPECTED.summary;
  return sectionsFound(text, expected) >= 1 ? null : 'unstructured';
}
