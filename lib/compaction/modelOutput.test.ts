import { describe, expect, it } from 'vitest';
import { assemblePrompt, initialInstructions, turnPrefixInstructions } from './prompts';
import { cleanModelSummary, outputFlaw } from './modelOutput';

const transcript = '[User]: Please fix the login form so that it validates the email address before submitting it.\n\n[Assistant]: The check lives in `LoginForm.tsx`; I added `isValidEmail`.';
const prompt = assemblePrompt(null, transcript, initialInstructions());
const good = '## Goal\nFix the login form.\n\n## Current Work\nAdded `isValidEmail` to `LoginForm.tsx`.\n\n## Next Step\nTest it.';

describe('what a model sends back, before it is a summary', () => {
  it('the scratchpad is removed and the <summary> tags unwrapped', () => {
    expect(cleanModelSummary(`<analysis>\n1. user asked…\n</analysis>\n\n<summary>\n${good}\n</summary>`)).toBe(good);
    expect(cleanModelSummary(`<analysis>notes</analysis>\n${good}`)).toBe(good);
    expect(cleanModelSummary(good)).toBe(good);
  });

  it('a <summary> tag mentioned inside a summary is text, not a wrapper', () => {
    const mention = '## Goal\nTeach the parser to skip the <summary> element.\n\n## Next Step\nTest it.';
    expect(cleanModelSummary(mention)).toBe(mention);
  });

  it('a scratchpad cut off before the summary leaves nothing: there is no summary', () => {
    expect(cleanModelSummary('<analysis>\n1. the user asked for a fix and then')).toBe('');
  });

  it('a summary with the asked sections passes', () => {
    expect(outputFlaw(good, prompt, 'compaction')).toBeNull();
    expect(outputFlaw('**Goal**: fix the form\n\n**Next Step**\n- test', prompt, 'compaction')).toBeNull();
  });

  it('an echo of the request is refused: our tags, a copied opening, or mostly copied lines', () => {
    expect(outputFlaw(`Stub reply to: ${prompt.slice(0, 300)}`, prompt, 'compaction')).toBe('echo');
    expect(outputFlaw(`## Goal\nsee <conversation> above\n## Next Step\nnone`, prompt, 'compaction')).toBe('echo');
    expect(outputFlaw(prompt.slice(0, 400), prompt, 'compaction')).toBe('echo');
    expect(outputFlaw('[User]: Please fix the login form so that it validates the email address before submitting it.\n## Goal', prompt, 'compaction')).toBe('echo');
  });

  it('quoting the request inside a structured summary is not an echo', () => {
    const quoting = `## Goal\nFix the login form.\n\n## Current Work\nThe latest request: "Please fix the login form so that it validates the email address before submitting it." Added \`isValidEmail\` in \`LoginForm.tsx\` and wired it to the submit handler, which now refuses an invalid address.\n\n## Next Step\nRun the form tests.`;
    expect(outputFlaw(quoting, prompt, 'compaction')).toBeNull();
  });

  it('an answer to the conversation instead of a summary is refused as unstructured', () => {
    expect(outputFlaw('Sure! I have fixed the login form, here is the code you asked for.', prompt, 'compaction')).toBe('unstructured');
    expect(outputFlaw('## Answer\nHere is the fixed form component with validation added.', prompt, 'compaction')).toBe('unstructured');
    expect(outputFlaw('## Goal\nOnly one section, but a summary.', prompt, 'compaction')).toBeNull();
  });

  it("a turn prefix may use its own sections or the general ones; a self-check's patch is not held to sections", () => {
    const tp = assemblePrompt(null, transcript, turnPrefixInstructions());
    expect(outputFlaw('## Original Request\nFix it.\n\n## Early Progress\nRead the form.', tp, 'turn-prefix')).toBeNull();
    expect(outputFlaw(good, tp, 'turn-prefix')).toBeNull();
    expect(outputFlaw('Added the check.', tp, 'self-check')).toBeNull();
  });
});
