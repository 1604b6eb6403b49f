import { describe, expect, it } from 'vitest';
import { DEFAULT_COMPACTION_SETTINGS, type SessionEntry } from '@/lib/session/types';
import { countText, loadSession, pathTokens } from '@/lib/testing/compactionData';
import { compact } from './compact';
import { extractiveBudgetChars } from './extractive';
import { stripFileFooter } from './fileOps';
import { summaryOutputBudget, prepareCompaction } from './prepare';

/**
 * Extractive summarizer v2 (issue 17, item 11) on the real pi session: its
 * messages replayed without pi's own compactions, compacted once with the
 * default settings (~197k tokens summarised, 20k kept).
 */

const norm = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase();

/** What the test reads from the transcript itself: user texts, the error lines of failed tool results. */
function userTexts(entries: readonly SessionEntry[]): string[] {
  return entries.flatMap((e) => (e.type === 'message' && e.message.role === 'user' ? [e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n').trim()] : [])).filter(Boolean);
}

/** The pi session's default compaction, summarised without a model. Run inside each test, not at collection (see chunking.test.ts). */
async function piSummary() {
  const messages = loadSession('piV1').path.filter((e) => e.type === 'message');
  const prep = prepareCompaction(messages, pathTokens(messages), DEFAULT_COMPACTION_SETTINGS)!;
  const ids = new Set([...prep.messagesToSummarize, ...prep.turnPrefixMessages].map((i) => i.entryId));
  const span = messages.filter((e) => ids.has(e.id));
  const spanTokens = prep.tokensSummarized + prep.tokensTurnPrefix;
  const summary = (await compact(prep, { kind: 'extractive' }))!.summary;
  const body = stripFileFooter(summary);
  const users = userTexts(span);
  return { prep, span, spanTokens, summary, body, users };
}

describe('extractive summary v2 on the pi session', () => {
  it('uses the budget it has (at least 90 % of it) and still compresses the span by more than 95 %', async () => {
    const { spanTokens, body, summary } = await piSummary();
    const budget = extractiveBudgetChars(summaryOutputBudget(DEFAULT_COMPACTION_SETTINGS), spanTokens);
    expect(budget).toBe(24_000);
    expect(body.length).toBeGreaterThanOrEqual(budget * 0.9);
    expect(body.length).toBeLessThanOrEqual(budget);
    expect(1 - countText(summary) / spanTokens).toBeGreaterThan(0.95);
  });

  it('names every user request of the span (verbatim while the budget lasts, newest first; then the first line)', async () => {
    const { users, body } = await piSummary();
    expect(users.length).toBeGreaterThan(60);
    const text = norm(body);
    for (const u of users) expect(text).toContain(norm(u.split('\n').find((l) => l.trim())!).slice(0, 150));
    const verbatim = users.filter((u) => body.includes(u.split('\n').map((l) => (l === '' ? '>' : `> ${l}`)).join('\n')));
    expect(verbatim.length).toBeGreaterThan(users.length / 3);
    // The newest request is among them.
    expect(verbatim).toContain(users.at(-1));
  });

  it('the first request is the goal, the latest requests are the next steps', async () => {
    const { users, body } = await piSummary();
    const goal = /## Goal \(the first request\)\n([\s\S]*?)\n\n## /.exec(body)![1]!;
    expect(goal).toContain(`> ${users[0]!.split('\n')[0]}`);
    const next = /## Next steps[^\n]*\n([\s\S]*?)\n\n## /.exec(body)![1]!;
    expect(next).toContain(`> ${users.at(-1)!.split('\n')[0]}`);
  });

  it('errors once each, by the line that says what went wrong, not "exit code 1" again and again', async () => {
    const { span, body } = await piSummary();
    const errors = /## Errors seen[^\n]*\n([\s\S]*?)\n\n## /.exec(body)![1]!.split('\n');
    expect(new Set(errors).size).toBe(errors.length);
    expect(errors.filter((l) => /^- `bash`: Command exited with code 1/.test(l))).toHaveLength(0);
    // A TypeScript error the session really hit, quoted from the tool output.
    const failed = span.flatMap((e) => (e.type === 'message' && e.message.role === 'toolResult' && e.message.isError ? [e.message.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')] : []));
    const tsLine = failed.flatMap((t) => t.split('\n')).find((l) => /error TS\d+:/.test(l))!;
    expect(tsLine).toBeDefined();
    expect(body).toContain(tsLine.trim().slice(0, 120));
  });

  it('commands with their outcome; files read and modified', async () => {
    const { prep, body, summary } = await piSummary();
    const commands = /## Commands run[^\n]*\n([\s\S]*?)\n\n## /.exec(body)![1]!;
    // The check failed on type errors several times before it passed: the summary says so, with the error.
    expect(commands).toMatch(/npm run check 2>&1` \(×\d+\) → ok; failed \d+× before, last: [^\n]*error TS\d+: /);
    expect(commands).toMatch(/git [^\n]*→ ok/);
    expect(body).toMatch(/## Files touched here\nModified: `\/Users\/badlogic\/workspaces\/pi-mono\//);
    for (const f of prep.fileOps.modifiedFiles) expect(summary).toContain(f);
  });
});
