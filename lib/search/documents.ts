import type { SessionEntry } from '@/lib/session/types';

/**
 * What the search index holds of an entry: the words a person would look for.
 * User and assistant text, attached text files' names, and summaries (a
 * compaction, a branch summary, an edited or regenerated summary). Left out:
 * tool results and hidden reasoning, which in imported coding-agent sessions
 * are most of the bytes (file dumps, command output) and would drown the
 * conversation's own words, and notes such as model changes or labels.
 */
export function searchableText(entry: SessionEntry): string {
  switch (entry.type) {
    case 'message': {
      const m = entry.message;
      if (m.role === 'toolResult') return '';
      const parts: string[] = [];
      for (const p of m.content) {
        if (p.type === 'text') parts.push(p.text);
        else if (p.type === 'file') parts.push(p.name);
      }
      return clip(parts.join('\n\n'));
    }
    case 'compaction':
    case 'branch_summary':
      return clip(entry.summary);
    case 'summary_revision':
      return clip(entry.summary ?? '');
    default:
      return '';
  }
}

/**
 * Text beyond this is not indexed: a pasted 5 MB log would add hundreds of
 * thousands of unique tokens for no search anyone makes. The first 50,000
 * characters of a message still cover every prose reply.
 */
export const MAX_INDEXED_CHARS = 50_000;

function clip(text: string): string {
  return text.length > MAX_INDEXED_CHARS ? text.slice(0, MAX_INDEXED_CHARS) : text;
}

/** Which kind of entry a hit is, as the results list names it. */
export type HitKind = 'user' | 'assistant' | 'summary';

export function hitKind(entry: SessionEntry): HitKind {
  if (entry.type === 'message' && entry.message.role === 'user') return 'user';
  if (entry.type === 'message') return 'assistant';
  return 'summary';
}
