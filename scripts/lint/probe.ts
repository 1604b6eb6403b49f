import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let eslint: ESLint | null = null;

const BOUNDARY_RULES = new Set(['no-restricted-imports', 'no-restricted-globals', 'import/no-restricted-paths', 'tests/no-focused']);

/**
 * Lints `code` as if it were the file at `path` (relative to the repository)
 * with the project's own ESLint configuration, and returns the boundary rules
 * (and the focused-test rule) that fired (an unused import in a probe is not what these tests are about).
 * The file need not exist; what it imports must, for the rules that resolve
 * imports to files.
 */
export async function firedRules(path: string, code: string): Promise<{ rule: string | null; message: string }[]> {
  eslint ??= new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${path}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === null || BOUNDARY_RULES.has(m.ruleId)).map((m) => ({ rule: m.ruleId, message: m.message }));
}

export const rulesOf = (fired: { rule: string | null }[]) => [...new Set(fired.map((f) => f.rule))].sort();
