import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/lib/session/types';
import { entryTokens } from '@/lib/testing/compactionData';
import { pathTokensFromCounts } from '@/lib/tokens/pathTokens';
import { DEFAULT_COMPACTION_SETTINGS } from '@/lib/session/types';
import { prepareRegeneration } from '../prepare';
import { serializeItems } from '../serialize';
import { HEADINGS_ONLY } from '../eval/agentCompare';
import { loadAgentCompactions } from '../../../scripts/evalSetup';
import { PROBE_KINDS, probesFor, type SpanMessage } from './probes';
import { answerOf, answers, coverage, health, missed } from './score';
import { containsTerm, normalise } from './text';

let n = 0;
const msg = (message: ChatMessage): SpanMessage => ({ entryId: `e${n++}`, message });
const user = (text: string) => msg({ role: 'user', content: [{ type: 'text', text }] });
const say = (text: string) => msg({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string, name: string, args: Record<string, unknown>) => msg({ role: 'assistant', content: [{ type: 'toolCall', id, name, arguments: args }] });
const result = (id: string, name: string, text: string, isError = false) => msg({ role: 'toolResult', toolCallId: id, toolName: name, content: [{ type: 'text', text }], isError });

/** The spans real agents compacted (pi, Claude Code), rebuilt as the app's regeneration rebuilds them. */
function agentSpans(): { label: string; span: SpanMessage[] }[] {
  return loadAgentCompactions().flatMap((c) => {
    const prep = prepareRegeneration(c.pathBefore, pathTokensFromCounts(c.pathBefore.map(entryTokens)), DEFAULT_COMPACTION_SETTINGS, c.entry);
    if (!prep) return [];
    const span = [...prep.messagesToSummarize, ...prep.turnPrefixMessages].flatMap((i) => (i.kind === 'message' ? [{ entryId: i.entryId, message: i.message }] : []));
    return span.length ? [{ label: `${c.fixture} #${c.ordinal}`, span }] : [];
  });
}

describe('the probes are not circular', () => {
  const spans = agentSpans();

  it('there are real agent compactions to probe', () => {
    expect(spans.length).toBeGreaterThanOrEqual(5);
  });

  it('a summary of section headings only, or nothing, answers no probe of any kind', () => {
    for (const { label, span } of spans) {
      const probes = probesFor(span);
      expect(probes.length, label).toBeGreaterThan(50);
      for (const text of [HEADINGS_ONLY, '']) {
        const c = coverage(text, probes);
        for (const k of PROBE_KINDS) expect(c[k].hit, `${label} ${k}`).toBe(0);
        expect(health(c), label).toBe(0);
      }
    }
  });

  it('the transcript itself answers nearly every probe: what is asked is there to be found', () => {
    for (const { label, span } of spans) {
      const probes = probesFor(span);
      const transcript = serializeItems(
        span.map((s) => ({ kind: 'message' as const, ...s })),
        { toolResultMaxChars: 100_000 },
      );
      const c = coverage(transcript, probes);
      for (const k of PROBE_KINDS) if (c[k].total) expect(c[k].hit / c[k].total, `${label} ${k}`).toBeGreaterThanOrEqual(0.9);
    }
  });
});

describe('what the probes ask for', () => {
  it('files modified come from writing tools and patch headers; viewing and reading are reads', () => {
    const probes = probesFor([
      call('a', 'str_replace_editor', { command: 'view', path: '/repo/seen.py' }),
      call('b', 'str_replace_editor', { command: 'str_replace', path: '/repo/pkg/changed.py' }),
      call('c', 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n*** Add File: src/b.ts\n*** End Patch' }),
      call('d', 'Read', { file_path: '/repo/src/read.ts' }),
    ]);
    expect(probes.filter((p) => p.kind === 'fileModified').map((p) => p.terms[0])).toEqual(['pkg/changed.py', 'src/a.ts', 'src/b.ts']);
    expect(probes.filter((p) => p.kind === 'fileRead').map((p) => p.label)).toEqual(['/repo/src/read.ts']);
  });

  it('a file read and later changed is a modified file, not a read one', () => {
    const probes = probesFor([call('a', 'Read', { file_path: '/r/x/a.ts' }), call('b', 'Edit', { file_path: '/r/x/a.ts', old_string: 'a', new_string: 'b' })]);
    expect(probes.filter((p) => p.kind === 'fileRead')).toEqual([]);
    expect(probes.filter((p) => p.kind === 'fileModified')).toHaveLength(1);
  });

  it('relative and absolute spellings of a file answer alike; another file of the same name does not', () => {
    const [p] = probesFor([call('a', 'Write', { file_path: '/Users/me/proj/src/core/sdk.ts', content: 'x' })]).filter((x) => x.kind === 'fileModified');
    expect(answers(answerOf('Changed `src/core/sdk.ts`'), p!)).toBe(true);
    expect(answers(answerOf('Changed /Users/me/proj/src/core/sdk.ts'), p!)).toBe(true);
    expect(answers(answerOf('Changed src/other/sdk.ts'), p!)).toBe(false);
  });

  it('a name is a whole name: `Agent` is not answered by `AgentSession`', () => {
    expect(containsTerm(normalise('the AgentSession class'), normalise('Agent'))).toBe(false);
    expect(containsTerm(normalise('uses `Agent` directly'), normalise('Agent'))).toBe(true);
    expect(containsTerm(normalise('see core/sdk.ts'), 'sdk.ts')).toBe(true);
  });

  it('requests are what people typed: relayed tool output, shell runs, injected blocks and continuation summaries are not', () => {
    const probes = probesFor([
      user('Fix the login form so that it validates the email'),
      user('[Request interrupted by user for tool use]'),
      user('[Shell command run by the user]\n$ ls'),
      user('<environment_context>\n<cwd>/x</cwd>\n</environment_context>'),
      user('This session is being continued from a previous conversation that ran out of context.'),
    ]);
    expect(probes.filter((p) => p.kind === 'request').map((p) => p.label)).toEqual(['Fix the login form so that it validates the email']);
  });

  it('a long request is asked for by its first words, cut at a word', () => {
    const line = 'please write a custom compaction example in examples/hooks that actually uses completeSimple with the model';
    const [p] = probesFor([user(line)]).filter((x) => x.kind === 'request');
    expect(p!.terms[0]!.length).toBeLessThanOrEqual(80);
    expect(line.toLowerCase().startsWith(p!.terms[0]!)).toBe(true);
    expect(answers(answerOf(`> ${line}`), p!)).toBe(true);
    expect(answers(answerOf('please write a custom compaction example'), p!)).toBe(false);
  });

  it('errors come from failed calls and named failures in command output, not from files that mention errors', () => {
    const probes = probesFor([
      call('a', 'bash', { command: 'npm run check' }),
      result('a', 'bash', "src/x.ts(3,1): error TS2345: Argument of type 'string' is not assignable", true),
      call('b', 'read', { path: '/r/src/y.ts' }),
      result('b', 'read', 'throw new Error("not found");\nconsole.error(x)'),
      call('c', 'bash', { command: 'node run.js' }),
      result('c', 'bash', 'starting\nTypeError: cannot read properties of undefined (reading "id")'),
      call('d', 'bash', { command: 'grep -rn foo src' }),
      result('d', 'bash', '(no output)\n\nCommand exited with code 1', true),
    ]);
    const errors = probes.filter((p) => p.kind === 'error');
    expect(errors.map((e) => e.terms[0])).toEqual(['ts2345', 'typeerror']);
  });

  it('decisions are the assistant’s sentences that choose or explain, asked for by their names and words', () => {
    const probes = probesFor([say('Let me check.\nI decided to use `zod/mini` instead of `zod` because the bundle is smaller.')]);
    const [d] = probes.filter((p) => p.kind === 'decision');
    expect(d!.terms).toContain('zod/mini');
    expect(answers(answerOf('Switched to `zod/mini` from `zod` to cut the bundle'), d!)).toBe(true);
    expect(answers(answerOf('Validation uses a schema library'), d!)).toBe(false);
  });

  it('the last task is answered by a restatement that keeps its names, not by a generic line', () => {
    const probes = probesFor([user('so we need to pass resolveApiKey to the before_compact hooks as well, so they can invoke models via complete()')]);
    const [t] = probes.filter((p) => p.kind === 'lastTask');
    expect(answers(answerOf('Open: add `resolveApiKey` to the `before_compact` event so hooks can call `complete()`'), t!)).toBe(true);
    expect(answers(answerOf('Work was in progress on the hooks.'), t!)).toBe(false);
  });

  it('the task list is the latest todo or plan call, item by item', () => {
    const probes = probesFor([
      call('a', 'TodoWrite', { todos: [{ content: 'Old item nobody needs', status: 'pending' }] }),
      call('b', 'TodoWrite', { todos: [{ content: 'Refactor timeline filtering to hide groups', status: 'completed' }, { content: 'Fix colour mismatch in group headers', status: 'in_progress' }] }),
      call('c', 'update_plan', { plan: [{ step: 'Write the migration for the accounts table', status: 'pending' }] }),
    ]);
    expect(probes.filter((p) => p.kind === 'task').map((p) => p.label)).toEqual(['[pending] Write the migration for the accounts table']);
  });

  it('a task item down to one key word is no probe: the word is as likely a heading of any summary', () => {
    const probes = probesFor([
      call('a', 'TodoWrite', { todos: [{ content: 'Fix any type check errors', status: 'completed' }, { content: 'Update PR with fixes', status: 'completed' }, { content: 'Fix linting errors', status: 'completed' }] }),
    ]);
    const tasks = probes.filter((p) => p.kind === 'task');
    expect(tasks.map((p) => p.label)).toEqual(['[completed] Fix linting errors']);
    expect(missed('## Errors and fixes\n\n## Next Steps', tasks)).toHaveLength(1);
  });

  it('work at the cut: the files and names of the last steps after the last request', () => {
    const probes = probesFor([
      user('rename the option'),
      say('The option `maxRetries` is read in `config/load.ts`.'),
      call('a', 'Edit', { file_path: '/r/src/config/load.ts', old_string: 'a', new_string: 'b' }),
    ]);
    const cut = probes.filter((p) => p.kind === 'currentWork');
    expect(cut.map((p) => p.terms[0])).toEqual(['config/load.ts', 'maxretries']);
    expect(missed('Editing `src/config/load.ts` to rename `maxRetries`', cut)).toEqual([]);
  });
});
