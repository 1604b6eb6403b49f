import { describe, expect, it } from 'vitest';
import { summaryForDisplay } from './summaryText';

describe('a summary as a card shows it', () => {
  it('the footer tags become file lists (root-relative paths made whole), and no tag is left in the text', () => {
    const stored = '## Goal\nFix it.\n\n<read-files root="/r/app">\nsrc/a.ts\n</read-files>\n\n<modified-files>\n/r/app/src/b.ts\n</modified-files>';
    const shown = summaryForDisplay(stored, { readFiles: [], modifiedFiles: ['/r/app/src/b.ts'] });
    expect(shown.text).toBe('## Goal\nFix it.');
    expect(shown.readFiles).toEqual(['/r/app/src/a.ts']);
    expect(shown.modifiedFiles).toEqual(['/r/app/src/b.ts']);
  });

  it('a tag quoted inside the summary text is shown as written', () => {
    expect(summaryForDisplay('## Goal\nThe model wrapped its answer in <summary> tags.', { readFiles: [], modifiedFiles: [] }).text).toBe('## Goal\nThe model wrapped its answer in <summary> tags.');
  });
});
