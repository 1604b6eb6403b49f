import { describe, expect, it } from 'vitest';
import type { ChatMessage, SummaryFallback } from '@/lib/session/types';
import { countText, entryTokens } from '@/lib/testing/compactionData';
import { loadAgentCompactions } from '../../scripts/evalSetup';
import { compareWithAgent } from './eval/agentCompare';
import { summaryBody } from './eval/summaryParts';
import { extractiveSummary, extractiveTargetChars, fallbackLabel } from './extractive';
import { splitFileFooter } from './fileOps';
import type { SummaryItem } from './types';
import { splitUserMessages } from './userMessages';

let n = 0;
const item = (message: ChatMessage): SummaryItem => ({ kind: 'message', entryId: `e${n++}`, message });
const user = (text: string) => item({ role: 'user', content: [{ type: 'text', text }] });
const say = (text: string, stopReason?: 'length' | 'interrupted') => item({ role: 'assistant', content: [{ type: 'text', text }], ...(stopReason ? { stopReason } : {}) });
const call = (id: string, name: string, args: Record<string, unknown>) => item({ role: 'assistant', content: [{ type: 'toolCall', id, name, arguments: args }] });
const result = (id: string, name: string, text: string, isError = false) => item({ role: 'toolResult', toolCallId: id, toolName: name, content: [{ type: 'text', text }], isError });
const noFiles = { readFiles: [], modifiedFiles: [] };

function summarise(items: SummaryItem[], extra: { previousSummary?: string; fileOps?: { readFiles: string[]; modifiedFiles: string[] }; maxChars?: number; fallback?: SummaryFallback } = {}) {
  return extractiveSummary(
    { kind: 'compaction', items, fileOps: extra.fileOps ?? noFiles, ...(extra.previousSummary ? { previousSummary: extra.previousSummary } : {}) },
    { ...(extra.maxChars ? { maxChars: extra.maxChars } : {}), ...(extra.fallback ? { fallback: extra.fallback } : {}) },
  );
}

/** A stretch of agent work: a request, a finding, a failed check fixed, a commit, a todo list, and an announcement at the end. */
function agentWork(): SummaryItem[] {
  return [
    user('The login form accepts invalid emails; make it validate them before submitting.'),
    say('Let me look at the form.'),
    call('c1', 'Read', { file_path: '/home/me/app/src/forms/LoginForm.tsx' }),
    result('c1', 'Read', 'export function LoginForm() {}'),
    say('The problem is that `LoginForm` calls `submitLogin` without checking `email`, because `validateEmail` in `src/lib/validate.ts` is never imported.'),
    call('c2', 'Edit', { file_path: '/home/me/app/src/forms/LoginForm.tsx', old_string: 'a', new_string: 'b' }),
    result('c2', 'Edit', 'ok'),
    call('c3', 'Bash', { command: 'npm test' }),
    result('c3', 'Bash', "FAIL src/forms/LoginForm.test.tsx\nTypeError: validateEmail is not a function", true),
    say('The test fails because `validateEmail` is a default export, not a named one.'),
    call('c4', 'Edit', { file_path: '/home/me/app/src/forms/LoginForm.tsx', old_string: 'b', new_string: 'c' }),
    result('c4', 'Edit', 'ok'),
    call('c5', 'Bash', { command: 'npm test' }),
    result('c5', 'Bash', 'Tests: 12 passed'),
    call('c6', 'Bash', { command: 'grep -rn "legacyLogin" src' }),
    result('c6', 'Bash', '(no output)\n\nCommand exited with code 1', true),
    call('c7', 'Bash', { command: 'git commit -am "Validate emails in LoginForm"' }),
    result('c7', 'Bash', '[main 1a2b3c] Validate emails in LoginForm'),
    call('c8', 'TodoWrite', { todos: [{ content: 'Validate emails in LoginForm', status: 'completed' }, { content: 'Show the error under the field', status: 'in_progress' }] }),
    result('c8', 'TodoWrite', 'ok'),
    say('Perfect!'),
    say('Now let me update the error message:'),
    call('c9', 'Read', { file_path: '/home/me/app/src/forms/errors.ts' }),
  ];
}

const files = { readFiles: ['/home/me/app/src/forms/errors.ts'], modifiedFiles: ['/home/me/app/src/forms/LoginForm.tsx'] };

describe('extractive summary: what it keeps', () => {
  it('is labelled, and its sections come in reading order with the user messages and the file lists at the end', () => {
    const s = summarise(agentWork(), { fileOps: files });
    expect(s.startsWith('**Extractive summary — no model.**')).toBe(true);
    const order = ['## Current work', '## Task list', '## What was worked out', '## Errors and what became of them', '## Commands that changed something or failed', '## User messages', '<read-files', '<modified-files'];
    const at = order.map((h) => s.indexOf(h));
    expect(at.every((i) => i >= 0), JSON.stringify(at)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('current work: the latest request, the last reply that says something, the announcement after it, and the last steps', () => {
    const s = summarise(agentWork(), { fileOps: files });
    const cw = /## Current work[^\n]*\n([\s\S]*?)\n\n## /.exec(s)![1]!;
    expect(cw).toContain('> The login form accepts invalid emails; make it validate them before submitting.');
    expect(cw).toContain('> The test fails because `validateEmail` is a default export, not a named one.');
    expect(cw).toContain('Then: “Now let me update the error message:”');
    // Paths under the footer's root are written as the footer writes them.
    expect(cw).toMatch(/Last steps: .*Read `forms\/errors\.ts`$/m);
    expect(cw).not.toContain('Perfect!');
  });

  it('what was worked out: the assistant’s findings with their names; narration and reactions are not findings', () => {
    const s = summarise(agentWork(), { fileOps: files });
    const wo = /## What was worked out[^\n]*\n([\s\S]*?)\n\n## /.exec(s)![1]!;
    expect(wo).toContain('`LoginForm` calls `submitLogin` without checking `email`');
    expect(wo).not.toMatch(/Let me look|Perfect/);
  });

  it('errors: each by its actual line, whether a later run succeeded, and the explanation that followed; a search that found nothing is no error', () => {
    const s = summarise(agentWork(), { fileOps: files });
    const errors = /## Errors and what became of them\n([\s\S]*?)\n\n## /.exec(s)![1]!;
    expect(errors).toContain('TypeError: validateEmail is not a function');
    expect(errors).toContain('→ later succeeded');
    expect(errors).toContain('then: The test fails because `validateEmail` is a default export');
    expect(errors).not.toContain('legacyLogin');
  });

  it('commands: the ones that changed something or decided the state; reads and searches are left out', () => {
    const s = summarise(agentWork(), { fileOps: files });
    const cmds = /## Commands that changed something or failed[^\n]*\n([\s\S]*?)\n\n## /.exec(s)![1]!;
    expect(cmds).toContain('`git commit -am "Validate emails in LoginForm"` → ok');
    expect(cmds).toContain('`npm test` (×2) → ok (failed 1× before: TypeError: validateEmail is not a function)');
    expect(cmds).not.toContain('grep');
  });

  it('the task list is the latest todo list, with its statuses', () => {
    const s = summarise(agentWork(), { fileOps: files });
    expect(s).toContain('- [x] Validate emails in LoginForm\n- [~] Show the error under the field');
  });

  it('a reply that stopped early says so', () => {
    for (const [reply, note] of [
      [say('The cause is in `parseDate` and the fix is to pass the timezone along with every', 'length'), 'cut off at the output limit'],
      [say('The cause is in `parseDate`, which drops the timezone of every date.', 'interrupted'), 'interrupted before it finished'],
      [say('The cause is in `parseDate`, which drops the timezone of every date.'), null],
      [say('The cause is in `parseDate`, which drops the timezone of every'), 'ends mid-sentence'],
    ] as const) {
      const s = summarise([user('why are dates off by one hour?'), reply]);
      if (note) expect(s).toContain(note);
      else expect(s).not.toContain('_(this reply');
    }
  });

  it('the user messages keep the first request when they must leave some out, cutting first lines shorter first', () => {
    const items = [user('Build a CLI that converts CSV files to JSON with streaming'), ...Array.from({ length: 60 }, (_, i) => [user(`Request number ${i}: ${'adjust the output format of the converter so that it handles quoting correctly '.repeat(3)}`), say(`Done with ${i}.`)]).flat()];
    const s = summarise(items, { maxChars: 4_000 });
    const { records } = splitUserMessages(s);
    expect(records[0]!.text).toBe('Build a CLI that converts CSV files to JSON with streaming');
    expect(records.at(-1)!.text).toContain('Request number 59');
    expect(s).toMatch(/… \d+ user messages left out for space …/);
    expect(s.length).toBeLessThanOrEqual(4_000);
  });

  it('an earlier summary is carried, and its user messages are merged so the first request survives three cycles', () => {
    const first = summarise([user('Port the parser to Rust, keeping the public API'), say('The parser entry point is `parse_document` in `src/lib.rs`.')]);
    const second = summarise([user('now add benchmarks'), say('Added `benches/parse.rs` using `criterion`.')], { previousSummary: first });
    const third = summarise([user('publish it'), say('Published version `0.2.0` to crates.io.')], { previousSummary: second });
    expect(splitUserMessages(third).records.map((r) => r.text)).toEqual(['Port the parser to Rust, keeping the public API', 'now add benchmarks', 'publish it']);
    expect(third).toContain('## Earlier summary');
    expect(third).toContain('criterion');
  });

  it('a short conclusive reply is the last state; one label, one footer and one user-messages section across cycles', () => {
    const lists = { readFiles: ['/src/a.ts'], modifiedFiles: ['/src/b.ts'] };
    const first = summarise([user('GOAL: build a parser'), say('Fixed the import; tests pass.')], { fileOps: lists });
    expect(first).toContain('The assistant’s last substantive reply:\n> Fixed the import; tests pass.');
    const second = summarise([user('now add tests')], { previousSummary: first, fileOps: lists });
    const third = summarise([user('and docs')], { previousSummary: second, fileOps: lists });
    expect(third).toContain('1.\n> GOAL: build a parser\n2.\n> now add tests\n3.\n> and docs');
    expect(third.split('**Extractive summary — no model.**')).toHaveLength(2);
    expect(third.split('<read-files')).toHaveLength(2);
    expect(third.split('## User messages')).toHaveLength(2);
    const huge = summarise([user('last')], { previousSummary: third + '\n' + 'filler '.repeat(10_000), fileOps: lists, maxChars: 3000 });
    expect(splitFileFooter(huge).body.length).toBeLessThanOrEqual(3000);
    expect(huge).toContain('GOAL: build a parser');
    expect(huge).toContain('> last');
  });

  it('a model summary before it is kept as the earlier summary, headings one level down', () => {
    expect(summarise([user('next')], { previousSummary: '## Goal\nModel-written goal' })).toContain('## Earlier summary\n### Goal\nModel-written goal');
  });

  it('the fallback label names the model and why its summary was rejected', () => {
    const f: SummaryFallback = { model: 'Local Llama', reason: 'echo', attempts: 2 };
    expect(fallbackLabel(f)).toContain('The summary of Local Llama was not used: it repeated the request instead of summarising it (2 attempts)');
    expect(summarise([user('hi there, please help'), say('Sure, what with?')], { fallback: f }).startsWith('**Extractive summary — fallback.**')).toBe(true);
  });

  it('file lists are written under their shared root once, and read back as full paths', () => {
    const s = summarise([user('x'), say('y')], { fileOps: files });
    expect(s).toContain('<modified-files root="/home/me/app/src">\nforms/LoginForm.tsx\n</modified-files>');
    expect(splitFileFooter(s)).toMatchObject({ readFiles: files.readFiles, modifiedFiles: files.modifiedFiles });
  });
});

describe('extractive summary beside the agents’ own, on the same real spans', () => {
  it('aims at about what an agent writes: a couple of thousand characters plus a little per token, at most 7 000', () => {
    expect(extractiveTargetChars(0, 24_000)).toBe(2_400);
    expect(extractiveTargetChars(100_000, 24_000)).toBe(5_400);
    expect(extractiveTargetChars(1_000_000, 24_000)).toBe(7_000);
    expect(extractiveTargetChars(100_000, 3_000)).toBe(3_000);
  });

  it('is at most twice the size of each agent’s summary, and its body alone says something of every kind the agent’s does', async () => {
    const compared = [];
    for (const c of loadAgentCompactions()) {
      const r = await compareWithAgent(c, { countText, tokensOf: entryTokens });
      if (r.ours && r.theirs) compared.push(r);
    }
    expect(compared.length).toBeGreaterThanOrEqual(5);
    for (const r of compared) {
      const label = `${r.fixture} #${r.ordinal}`;
      expect(r.ours!.chars / r.theirs!.chars, label).toBeLessThanOrEqual(2);
      // Not carried by the appended sections alone: the body names what the assistant worked out.
      expect(r.ours!.body.assistantIdentifier.hit, label).toBeGreaterThan(r.ours!.body.assistantIdentifier.total * 0.2);
      expect(summaryBody('').length).toBe(0);
    }
  });
});
