/**
 * `.only` left in a test file silently turns the rest of its suite off (Vitest and Playwright both
 * honour it), so a green run would prove nothing. Vitest (allowOnly: false) and Playwright
 * (forbidOnly: true) refuse it at run time; this rule says so at lint time, where it is cheap to fix.
 *
 * Reports `<root>.only` and `<root>.<modifier>.only` where the root is a test function of either runner:
 * it.only, test.only, describe.only, test.describe.only, test.describe.serial.only, it.skipIf(x).only …
 */
const TEST_ROOTS = new Set(['it', 'test', 'describe', 'suite', 'bench']);

/** The identifier a member chain or call chain starts from: `test` for test.describe.serial or it.skipIf(x). */
function rootName(node) {
  let n = node;
  while (n) {
    if (n.type === 'Identifier') return n.name;
    if (n.type === 'MemberExpression') n = n.object;
    else if (n.type === 'CallExpression') n = n.callee;
    else return null;
  }
  return null;
}

const isOnly = (prop, computed) => (computed ? prop.type === 'Literal' && prop.value === 'only' : prop.type === 'Identifier' && prop.name === 'only');

export const noFocusedTests = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid .only in tests: it hides every other test of the suite.' },
    schema: [],
    messages: { only: '`{{name}}.only` runs this test alone and silently skips the others; remove `.only`.' },
  },
  create(context) {
    return {
      MemberExpression(node) {
        if (!isOnly(node.property, node.computed)) return;
        const root = rootName(node.object);
        if (root && TEST_ROOTS.has(root)) context.report({ node: node.property, messageId: 'only', data: { name: context.sourceCode.getText(node.object) } });
      },
    };
  },
};

export const testsPlugin = { rules: { 'no-focused': noFocusedTests } };
