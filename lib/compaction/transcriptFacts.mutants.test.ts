import { describe, expect, it } from 'vitest';
import type { AssistantContent, ChatMessage } from '@/lib/session/types';
import { commonCd, gatherFacts } from './transcriptFacts';
import type { SummaryItem } from './types';

/** What the extractive summary reads from a span, rule by rule, on hand-made messages. */

const item = (entryId: string, message: ChatMessage): SummaryItem => ({ kind: 'message', entryId, message });
const assistant = (id: string, content: AssistantContent[]) => item(id, { role: 'assistant', content });
const call = (id: string, name: string, args: Record<string, unknown>) => assistant(`a-${id}`, [{ type: 'toolCall', id, name, arguments: args }]);
const result = (id: string, text: string, isError = false, toolName = 'bash') => item(`t-${id}`, { role: 'toolResult', toolCallId: id, toolName, content: [{ type: 'text', text }], isError });
/** A failed shell command with `output`. */
const failed = (id: string, output: string) => [call(id, 'bash', { command: `run ${id}` }), result(id, output, true)];
const errorsOf = (items: SummaryItem[]) => [...gatherFacts(items).errors.values()].map((e) => `${e.text}${e.count > 1 ? ` ×${e.count}` : ''}`);

describe('commands', () => {
  it('only a non-blank text (or a list of words) is a command; it is shown trimmed', () => {
    const f = gatherFacts([
      call('c1', 'bash', { command: 42 }),
      call('c2', 'bash', {}),
      call('c3', 'bash', { command: '   ' }),
      call('c4', 'bash', { command: '  make test  ' }),
      call('c5', 'bash', { cmd: ['ls', '-la'] }),
      call('c6', 'bash', { command: 'npm test\n' }),
      call('c7', 'bash', { command: 'cat <<EOF\nline\nEOF' }),
    ]);
    // A command of several lines is shown by its first, marked as cut.
    expect([...f.commands.keys()]).toEqual(['make test', 'ls -la', 'npm test', 'cat <<EOF …']);
  });
});

describe('the line that says what went wrong', () => {
  it('blank lines are never the answer: the last line that is not an exit code', () => {
    expect(errorsOf(failed('c1', '\n  \nsomething odd happened\n\n'))).toEqual(['`bash`: something odd happened']);
  });

  it('a traceback header is skipped only at the start of a line', () => {
    expect(errorsOf(failed('c1', 'see Traceback (most recent call last)\nexit code 1'))).toEqual(['`bash`: see Traceback (most recent call last)']);
    expect(errorsOf(failed('c1', 'Traceback (most recent call last)\nboom happened'))).toEqual(['`bash`: boom happened']);
  });
});

describe('distinct errors', () => {
  it('the same wording with other numbers or spacing is one error, counted, in its latest form and at its latest place', () => {
    const items = [...failed('c1', 'x failed at line 12'), ...failed('c2', 'cannot  open config'), ...failed('c3', 'x failed at line 7'), ...failed('c4', 'cannot open config'), ...failed('c5', 'x failed at line 9')];
    expect(errorsOf(items)).toEqual(['`bash`: cannot open config ×2', '`bash`: x failed at line 9 ×3']);
  });

  it('numbers are masked, not dropped, and words are compared, not only the spacing', () => {
    const items = [...failed('c1', 'code E1 failed'), ...failed('c2', 'code E failed'), ...failed('c3', 'cannot find x'), ...failed('c4', 'unable to y'), ...failed('c5', 'rm: a b denied'), ...failed('c6', 'rm: ab denied')];
    expect(errorsOf(items)).toHaveLength(6);
  });
});

describe('replies and files', () => {
  it('the last reply is the last one with text: tool calls alone and blank text do not replace it', () => {
    const f = gatherFacts([
      assistant('a1', [{ type: 'text', text: 'Here is the plan.' }]),
      call('c1', 'read', { path: '/a.ts' }),
      assistant('a2', [{ type: 'text', text: ' \n ' }]),
    ]);
    expect(f.lastReply).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Here is the plan.' }] });
  });

  it('files are counted per call', () => {
    const f = gatherFacts([call('c1', 'edit', { path: '/a.ts' }), call('c2', 'edit', { path: '/a.ts' }), call('c3', 'write', { path: '/b.ts' }), call('c4', 'read', { path: '/c.ts' }), call('c5', 'read', { path: '/c.ts' })]);
    expect(f.modified).toEqual(new Map([['/a.ts', 2], ['/b.ts', 1]]));
    expect(f.read).toEqual(new Map([['/c.ts', 2]]));
    expect(f.tools).toEqual(new Map([['edit', 2], ['write', 1], ['read', 2]]));
  });
});

describe('commonCd', () => {
  it('the directory at least a third of the commands start by changing to; none for no commands', () => {
    expect(commonCd([])).toBeNull();
    expect(commonCd(['cd /a && make', 'ls', 'pwd'])).toBe('/a');
    expect(commonCd(['cd /a && make', 'ls', 'pwd', 'whoami'])).toBeNull();
    expect(commonCd(['cd /a && make', 'cd /b && x', 'cd /b && y', 'ls'])).toBe('/b');
  });

  it('only a cd at the start of a command counts', () => {
    expect(commonCd(['echo hi && cd /a && make'])).toBeNull();
  });
});
