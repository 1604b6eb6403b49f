import { describe, expect, it } from 'vitest';
import type { SessionEntry } from '@/lib/session/types';
import { loadSession } from '@/lib/testing/compactionData';
import { PROBE_KINDS, coverage, probesFor, totalCoverage } from './probes';

/** Probes drawn from a transcript: what a summary of it must still answer. */

let n = 0;
const entry = (message: Extract<SessionEntry, { type: 'message' }>['message']): SessionEntry => ({ type: 'message', id: `e${++n}`, parentId: null, timestamp: 0, message });
const user = (text: string) => entry({ role: 'user', content: [{ type: 'text', text }] });
const reply = (text: string) => entry({ role: 'assistant', content: [{ type: 'text', text }] });

describe('probes from a transcript', () => {
  it('user lines after the first that state a rule become constraint probes; short, long and plain lines do not', () => {
    const probes = probesFor([
      user("Add a CSV export\nIt must keep the column order\nnever\nDon't touch the API layer\nPlease also add docs\nYou should not rename files " + 'x'.repeat(240)),
    ]);
    expect(probes.filter((p) => p.kind === 'constraint').map((p) => p.expect[0])).toEqual(['it must keep the column order', "don't touch the api layer"]);
    expect(probes.filter((p) => p.kind === 'recall').map((p) => p.expect[0])).toEqual(['add a csv export']);
    for (const word of ['always', 'make sure', "shouldn't", 'only', 'without', 'do not', 'should not'])
      expect(probesFor([user(`Title\nYou ${word} use the cache here`)]).some((p) => p.kind === 'constraint'), word).toBe(true);
  });

  it('decisions are sentences with a decision word and backticked names; the last ten are kept', () => {
    const words = ['decided', 'decision', 'instead of', 'rather than', "I'll use", "we'll use", "let's use", 'going with', 'chose', 'opted', 'switch to', 'switched to'];
    const replies = words.map((w, i) => reply(`Some context. So ${w} \`lib${i}\` and \`api${i}\` here. Unrelated \`x\` sentence.`));
    const decisions = probesFor(replies).filter((p) => p.kind === 'decision');
    expect(decisions).toHaveLength(10);
    expect(decisions.map((p) => p.expect)).toEqual(words.slice(-10).map((_, i) => [`lib${i + 2}`, `api${i + 2}`]));
    // Without a backticked name there is nothing to check; a one-character span is not a name.
    expect(probesFor([reply('We decided to go ahead.'), reply('Decided on `x`.')]).filter((p) => p.kind === 'decision')).toEqual([]);
  });

  it('files: whole single-line paths from writing tools, patch headers, never viewed files', () => {
    const call = (name: string, args: Record<string, unknown>) => entry({ role: 'assistant', content: [{ type: 'toolCall', id: `c${++n}`, name, arguments: args }] });
    const probes = probesFor([
      call('Write', { file_path: '/Repo/Src/A.ts', content: 'x\ny' }),
      call('create_file', { target: 'b.md' }),
      call('str_replace_editor', { command: 'VIEW', path: '/seen.py' }),
      call('edit', { path: 'two\nlines' }),
      call('edit', { path: 'p'.repeat(400) }),
      call('bash', { path: '/not/a/write' }),
      call('notebook', { destination: '/n.ipynb' }),
      call('patch', { input: '*** Update File: c.ts\n*** Move to: d.ts' }),
    ]);
    expect(probes.filter((p) => p.kind === 'artifact').map((p) => p.expect[0])).toEqual(['/repo/src/a.ts', 'b.md', '/n.ipynb', 'c.ts', 'd.ts']);
  });

  it('answers are matched after normalising case, spacing and markdown marks', () => {
    const probes = probesFor([user('Use `snake_case` for **all** keys')]);
    // One request: its recall probe and the continuation probe, both answered.
    expect(totalCoverage(coverage('> use SNAKE CASE   for all keys', probes))).toEqual({ hit: 2, total: 2 });
    expect(totalCoverage(coverage('use camelCase', probes))).toEqual({ hit: 0, total: 2 });
    expect(Object.keys(coverage('', []))).toEqual([...PROBE_KINDS]);
  });

  it('on the real pi session every probe is answered by the transcript itself', () => {
    const path = loadSession('piV1').path.filter((e) => e.type === 'message');
    const probes = probesFor(path);
    const transcript = path
      .map((e) => (e.type === 'message' ? e.message.content.map((p) => (p.type === 'text' ? p.text : p.type === 'toolCall' ? JSON.stringify(p.arguments).replace(/\\n/g, '\n') : '')).join('\n') : ''))
      .join('\n');
    const c = totalCoverage(coverage(transcript, probes));
    expect(c.total).toBeGreaterThan(50);
    expect(c.hit / c.total).toBeGreaterThan(0.95);
  });
});
