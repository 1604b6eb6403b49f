import { describe, expect, it } from 'vitest';
import { contextFill, formatContextFigure, formatTokens } from './format';

describe('formatting', () => {
  it('shortens token counts', () => {
    expect([950, 1_000, 12_345, 100_000, 184_525, 1_234_567, 2_000_000].map(formatTokens)).toEqual(['950', '1k', '12.3k', '100k', '185k', '1.23M', '2M']);
  });

  it('marks approximate figures and shows the window share', () => {
    expect(formatContextFigure({ tokens: 12_345, approximate: true, window: 200_000 })).toBe('≈ 12.3k / 200k (6%)');
    expect(formatContextFigure({ tokens: 950, approximate: false })).toBe('950');
    expect(contextFill({ tokens: 250_000, window: 200_000 })).toBe(1);
    expect(contextFill({ tokens: 10 })).toBeNull();
  });
});
