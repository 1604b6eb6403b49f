/**
 * An import resolver for eslint-plugin-import (resolver interface v2) that
 * knows this project's one alias, `@/` → the repository root, and defers
 * everything else to the Node resolver. The TypeScript resolver would do the
 * same through a native binary whose platform builds the lockfile cannot
 * list from every registry, which breaks `npm ci`; this is all the project needs.
 */
const { existsSync, statSync } = require('node:fs');
const { dirname, join, resolve: resolvePath } = require('node:path');
const node = require('eslint-import-resolver-node');

const ROOT = resolvePath(__dirname, '..', '..');
const EXTENSIONS = ['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs', '.d.ts'];

function asFile(base) {
  if (existsSync(base) && statSync(base).isFile()) return base;
  for (const ext of EXTENSIONS) if (existsSync(base + ext)) return base + ext;
  for (const ext of EXTENSIONS) if (existsSync(join(base, `index${ext}`))) return join(base, `index${ext}`);
  return null;
}

exports.interfaceVersion = 2;

exports.resolve = (source, file) => {
  if (source.startsWith('@/') || source.startsWith('.')) {
    const base = source.startsWith('@/') ? join(ROOT, source.slice(2)) : resolvePath(dirname(file), source);
    const found = asFile(base);
    return found ? { found: true, path: found } : { found: false };
  }
  return node.resolve(source, file, { extensions: EXTENSIONS });
};
