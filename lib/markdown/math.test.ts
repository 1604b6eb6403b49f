import { describe, expect, it } from 'vitest';
import { expectInert } from '@/lib/testing/formatChecks';
import { mayHoldMath } from './mayHoldMath';
import { renderMarkdownToHtml } from './render';

describe('math in markdown (remark-math + KaTeX after the sanitizer)', () => {
  it('typesets inline and display math as MathML, keeping the TeX as its annotation', () => {
    const html = renderMarkdownToHtml('Euler: $e^{i\\pi}+1=0$.\n\n$$\n\\int_0^1 x\\,dx = \\frac{1}{2}\n$$');
    expect(html).toContain('<math xmlns="http://www.w3.org/1998/Math/MathML">');
    expect(html).toContain('display="block"');
    expect(html).toContain('<mfrac>');
    expect(html).toContain('<annotation encoding="application/x-tex">e^{i\\pi}+1=0</annotation>');
    expectInert(html, { allowMathMl: true });
  });

  it('typesets a ```math block as display math', () => {
    expect(renderMarkdownToHtml('```math\na^2+b^2=c^2\n```')).toContain('display="block"');
  });

  it('leaves money alone: "$5 and $10" and "$5-$10" are prices, not math', () => {
    for (const text of ['It costs $5 and $10 a month.', 'Expect $5-$10 per seat.', 'Between $ 3 and $4.']) {
      const html = renderMarkdownToHtml(text);
      expect(html).not.toContain('<math');
      expect(html).toContain(text.slice(text.indexOf('$'), text.lastIndexOf('$') + 2));
    }
  });

  it('runs no link or HTML command from TeX (KaTeX trust is off) and stays inert', () => {
    for (const tex of ['$\\href{javascript:alert(1)}{click}$', '$\\url{javascript:alert(1)}$', '$\\htmlClass{x}{y}$', '$\\htmlStyle{color:red}{y}$', '$<img src=x onerror=alert(1)>$', '$$\n</math><script>alert(1)</script>\n$$']) {
      const html = renderMarkdownToHtml(tex);
      expectInert(html, { allowMathMl: true });
      expect(html).not.toMatch(/href=/i);
    }
  });

  it('loads the math plugins only for texts with a dollar sign or a math block', () => {
    expect(mayHoldMath('plain text')).toBe(false);
    expect(mayHoldMath('costs $5')).toBe(true);
    expect(mayHoldMath('```math\nx\n```')).toBe(true);
  });
});
