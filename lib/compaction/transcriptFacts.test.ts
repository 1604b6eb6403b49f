import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '@/lib/session/types';
import { loadSession } from '@/lib/testing/compactionData';
import { commonCd, gatherFacts, quote } from './transcriptFacts';
import type { SummaryItem } from './types';

/** What the extractive summary reads from a span: commands and their outcome, and the line that says what went wrong. */

const msg = (entryId: string, message: ChatMessage): SummaryItem => ({ kind: 'message', entryId, message });

/** One shell call `name(command)` answered by `output`. */
function run(i: number, name: string, args: Record<string, unknown>, output: string, isError = true): SummaryItem[] {
  return [
    msg(`a${i}`, { role: 'assistant', content: [{ type: 'toolCall', id: `c${i}`, name, arguments: args }] }),
    msg(`t${i}`, { role: 'toolResult', toolCallId: `c${i}`, toolName: name, isError, content: [{ type: 'text', text: output }] }),
  ];
}

const errorOf = (output: string) => [...gatherFacts(run(0, 'bash', { command: 'x' }, output)).errors.values()][0]!.text;

describe('the line that says what went wrong', () => {
  it('a named error wins over lines that only sound like one and over exit codes', () => {
    expect(errorOf('Building...\nsrc/a.ts(3,1): error TS2345: Argument of type string is not assignable\nFound 1 error.\nexit code 2')).toBe('`bash`: src/a.ts(3,1): error TS2345: Argument of type string is not assignable');
    expect(errorOf('Traceback (most recent call last):\n  File "x.py", line 1\nValueError: bad value\n')).toBe('`bash`: ValueError: bad value');
    expect(errorOf('npm ERR! missing script: lint\nnpm ERR! A complete log')).toBe('`bash`: npm ERR! missing script: lint');
    expect(errorOf('warning: x\nfatal: not a git repository')).toBe('`bash`: fatal: not a git repository');
    expect(errorOf(' FAIL src/a.test.ts\n 1 failed')).toBe('`bash`: FAIL src/a.test.ts');
    expect(errorOf('error[E0308]: mismatched types')).toBe('`bash`: error[E0308]: mismatched types');
    expect(errorOf('    at foo\n  Exception in thread main')).toBe('`bash`: Exception in thread main');
  });

  it('without a named error: the first line that sounds like one, else the last line that is not noise', () => {
    expect(errorOf('copying files\ncp: cannot stat x: No such file or directory\ndone')).toBe('`bash`: cp: cannot stat x: No such file or directory');
    expect(errorOf('step 1\nstep 2 timed out\n')).toBe('`bash`: step 2 timed out');
    expect(errorOf('compiling\n3 warnings\nCommand exited with code 1')).toBe('`bash`: 3 warnings');
    // Noise: exit codes, npm's script echo, Codex headers, "(no output)", a bare "error".
    expect(errorOf('> pkg@1.0.0 test\n> vitest\nChunk ID: 1\nWall time: 2s\nOriginal token count: 5\nOutput: x\nProcess running with session ID 7\nexit status 1\nprocess exited with code 1\nerror:\n(no output)\nthe last word')).toBe('`bash`: the last word');
    // Only noise: the exit code lines themselves; nothing at all: "(no output)".
    expect(errorOf('exited with code 1\nexit code: 1')).toBe('`bash`: exited with code 1, exit code: 1');
    expect(errorOf('  \n')).toBe('`bash`: (no output)');
  });

  it('the same failure at other line numbers is one error, counted', () => {
    const facts = gatherFacts([...run(1, 'bash', { command: 'tsc' }, 'a.ts(12,1): error TS1: x'), ...run(2, 'bash', { command: 'tsc' }, 'a.ts(40,7): error TS1: x')]);
    expect([...facts.errors.values()]).toEqual([{ text: '`bash`: a.ts(40,7): error TS1: x', count: 2 }]);
  });
});

describe('commands', () => {
  it('every shell tool name is read as a command, with its command, cmd or script argument', () => {
    const names = ['bash', 'Bash', 'shell', 'sh', 'zsh', 'terminal', 'run_shell_command', 'run_terminal_cmd', 'exec_command', 'execute_command', 'local_shell', 'run_command', 'command'];
    for (const [i, name] of names.entries()) expect([...gatherFacts(run(i, name, { command: `echo ${i}` }, 'ok', false)).commands.keys()], name).toEqual([`echo ${i}`]);
    expect([...gatherFacts(run(0, 'shell', { cmd: ['git', 'status'] }, 'ok', false)).commands.keys()]).toEqual(['git status']);
    expect([...gatherFacts(run(0, 'bash', { script: '  ls\n  pwd ' }, 'ok', false)).commands.keys()]).toEqual(['ls …']);
    expect(gatherFacts(run(0, 'bashful', { command: 'x' }, 'ok', false)).commands.size).toBe(0);
    expect(gatherFacts(run(0, 'bash', { command: '   ' }, 'ok', false)).commands.size).toBe(0);
  });

  it('a command run again keeps its count, its latest outcome and its last failure', () => {
    const facts = gatherFacts([...run(1, 'bash', { command: 'npm test' }, 'Error: boom'), ...run(2, 'bash', { command: 'npm test' }, 'all passed', false)]);
    expect([...facts.commands.values()]).toEqual([{ text: 'npm test', count: 2, outcome: 'ok', failures: 1, lastFailure: 'Error: boom' }]);
  });

  it('the common directory is the one at least a third of the commands change to', () => {
    expect(commonCd(['cd /repo && ls', 'cd /repo && make', 'git status'])).toBe('/repo');
    expect(commonCd(['cd /repo && ls', 'a', 'b', 'c'])).toBeNull();
    expect(commonCd(['cd /a && x', 'cd /b && y', 'cd /b && z'])).toBe('/b');
    expect(commonCd([])).toBeNull();
  });

  it('on the real pi session: counts by role add up and every failed command has its failure line', () => {
    const items = loadSession('piV1')
      .path.filter((e) => e.type === 'message')
      .map((e) => msg(e.id, (e as { message: ChatMessage }).message));
    const f = gatherFacts(items);
    const role = (r: string) => items.filter((i) => i.kind === 'message' && i.message.role === r).length;
    expect([f.users, f.assistants, f.results]).toEqual([role('user'), role('assistant'), role('toolResult')]);
    expect(f.commands.size).toBeGreaterThan(10);
    for (const c of f.commands.values()) if (c.failures > 0) expect(c.lastFailure).toBeTruthy();
  });

  it('quote marks every line, blank ones with a bare marker', () => {
    expect(quote('a\n\nb')).toBe('> a\n>\n> b');
  });
});
