/**
 * `npm run arch`: the figures that say whether the code keeps its shape.
 *
 * - import cycles between files, and between feature folders (components/chat,
 *   lib/compaction, …): a folder cycle means two features cannot change alone;
 * - files under components/ that hold no React (no JSX, no hook): logic that
 *   belongs in lib/ where unit tests reach it;
 * - the largest source files;
 * - exports nothing imports (dead code), tests and scripts counted as users.
 *
 * Imports are resolved with the TypeScript compiler's own module resolution
 * (the `@/` alias included), so the graph is the one tsc sees. Type-only
 * imports count: they couple files just the same.
 */
import ts from 'typescript';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const SOURCE_DIRS = ['app', 'components', 'lib', 'workers', 'scripts', 'e2e'];
const SKIP = new Set(['node_modules', '.next', 'test-results', 'bench-results', 'scratch']);

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const rel = (p: string) => relative(ROOT, p).split(sep).join('/');
const isTest = (f: string) => /\.(test|spec)\.tsx?$/.test(f) || f.startsWith('e2e/') || f.includes('/testing/');

const configFile = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
const files = SOURCE_DIRS.flatMap((d) => {
  try {
    return walk(join(ROOT, d));
  } catch {
    return [];
  }
}).concat(['proxy.ts', 'instrumentation.ts', 'instrumentation-client.ts', 'playwright.config.ts', 'vitest.config.ts'].map((f) => join(ROOT, f)).filter((f) => ts.sys.fileExists(f)));

interface FileInfo {
  path: string;
  lines: number;
  imports: { target: string; names: string[] | '*' }[];
  /** Names this file declares and exports itself. */
  exports: string[];
  /** `export { a as b } from './x'`: b → {x, a}. */
  reexports: Map<string, { target: string; name: string }>;
  /** `export * from './x'`. */
  starTargets: string[];
  react: boolean;
}

function analyse(abs: string): FileInfo {
  const text = readFileSync(abs, 'utf8');
  const sf = ts.createSourceFile(abs, text, ts.ScriptTarget.Latest, true, abs.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const imports: FileInfo['imports'] = [];
  const exports: string[] = [];
  const reexports: FileInfo['reexports'] = new Map();
  const starTargets: string[] = [];
  let react = false;
  const resolve = (spec: string): string | null => {
    const r = ts.resolveModuleName(spec, abs, parsed.options, ts.sys).resolvedModule;
    if (!r || r.isExternalLibraryImport || r.resolvedFileName.includes('node_modules')) return null;
    return rel(r.resolvedFileName);
  };
  const visit = (node: ts.Node) => {
    if (ts.isJsxElement(node) || ts.isJsxSelfClosingElement(node) || ts.isJsxFragment(node)) react = true;
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && /^use[A-Z]/.test(node.expression.text)) react = true;
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const target = resolve(node.moduleSpecifier.text);
      const clause = node.importClause;
      if (target) {
        let names: string[] | '*' = [];
        if (!clause) names = '*';
        else {
          if (clause.name) names.push('default');
          const nb = clause.namedBindings;
          if (nb && ts.isNamespaceImport(nb)) names = '*';
          else if (nb) for (const el of nb.elements) (names as string[]).push((el.propertyName ?? el.name).text);
        }
        imports.push({ target, names });
      }
    }
    if (ts.isExportDeclaration(node)) {
      const target = node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier) ? resolve(node.moduleSpecifier.text) : null;
      const clause = node.exportClause;
      // An edge of the graph either way; what it makes "used" is followed by markUsed.
      if (target) imports.push({ target, names: [] });
      if (clause && ts.isNamedExports(clause)) {
        for (const el of clause.elements) {
          if (target) reexports.set(el.name.text, { target, name: (el.propertyName ?? el.name).text });
          else exports.push(el.name.text);
        }
      } else if (target) starTargets.push(target);
    }
    // Dynamic import() and new URL('./x.worker.ts', import.meta.url) load whole modules.
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      const target = resolve(node.arguments[0].text);
      if (target) imports.push({ target, names: '*' });
    }
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL' && node.arguments?.[0] && ts.isStringLiteral(node.arguments[0])) {
      const target = resolve(node.arguments[0].text.replace(/\.ts$/, ''));
      if (target) imports.push({ target, names: '*' });
    }
    const mods = ts.canHaveModifiers(node) ? ts.getModifiers(node) : undefined;
    if (mods?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) && node.parent === sf) {
      const isDefault = mods.some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      if (isDefault) exports.push('default');
      else if (ts.isVariableStatement(node)) {
        for (const d of node.declarationList.declarations) if (ts.isIdentifier(d.name)) exports.push(d.name.text);
      }
      else if ('name' in node && node.name && ts.isIdentifier(node.name as ts.Node)) exports.push((node.name as ts.Identifier).text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  // A store module that exports a hook (zustand's create) is React state, not domain logic.
  if (exports.some((n) => /^use[A-Z]/.test(n))) react = true;
  return { path: rel(abs), lines: text.split('\n').length, imports, exports, reexports, starTargets, react };
}

const infos = new Map(files.map((f) => [rel(f), analyse(f)]));

// ---------------------------------------------------------------- cycles (Tarjan's strongly connected components)

function stronglyConnected(nodes: string[], edges: (n: string) => Iterable<string>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const strong = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of edges(v)) {
      if (!idx.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.sort());
    }
  };
  for (const n of nodes) if (!idx.has(n)) strong(n);
  return out;
}

const appFiles = [...infos.keys()].filter((f) => !isTest(f) && !f.startsWith('scripts/'));
const fileCycles = stronglyConnected(appFiles, (f) => (infos.get(f)?.imports ?? []).map((i) => i.target).filter((t) => appFiles.includes(t)));

/** components/chat/x.tsx → components/chat; lib/db/x.ts → lib/db; app/api/chat/route.ts → app/api. */
function folderOf(f: string): string {
  const parts = f.split('/');
  if (parts[0] === 'app') return parts[1] === 'api' ? 'app/api' : 'app';
  return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
}
const folders = [...new Set(appFiles.map(folderOf))];
const folderEdges = new Map<string, Set<string>>();
for (const f of appFiles) {
  const from = folderOf(f);
  for (const i of infos.get(f)!.imports) {
    if (!appFiles.includes(i.target)) continue;
    const to = folderOf(i.target);
    if (to !== from) (folderEdges.get(from) ?? folderEdges.set(from, new Set()).get(from)!).add(to);
  }
}
const folderCycles = stronglyConnected(folders, (f) => folderEdges.get(f) ?? []);

// ---------------------------------------------------------------- non-React code in components/

const logicInComponents = appFiles.filter((f) => f.startsWith('components/') && !infos.get(f)!.react).map((f) => ({ file: f, lines: infos.get(f)!.lines }));

// ---------------------------------------------------------------- dead exports

// Next.js calls these by convention; they are not imported by anyone.
const FRAMEWORK = /^(app\/(.*\/)?(page|layout|route|not-found|error|loading|manifest|sw)\.tsx?|proxy\.ts|instrumentation(-client)?\.ts|.*\.config\.ts)$/;
const used = new Map<string, Set<string>>();
const wholeModule = new Set<string>();
/** Marks `name` of `file` as used, following re-exports and `export *` to where it is declared. */
function markUsed(file: string, name: string, seen = new Set<string>()): boolean {
  const key = `${file}#${name}`;
  if (seen.has(key)) return false;
  seen.add(key);
  const info = infos.get(file);
  if (!info) return false;
  let found = false;
  if (info.exports.includes(name)) found = true;
  const re = info.reexports.get(name);
  if (re) found = markUsed(re.target, re.name, seen) || true;
  if (!found) for (const t of info.starTargets) if (markUsed(t, name, seen)) found = true;
  if (found) (used.get(file) ?? used.set(file, new Set()).get(file)!).add(name);
  return found;
}
function markWhole(file: string, seen = new Set<string>()) {
  if (seen.has(file)) return;
  seen.add(file);
  wholeModule.add(file);
  const info = infos.get(file);
  if (!info) return;
  for (const r of info.reexports.values()) markUsed(r.target, r.name);
  for (const t of info.starTargets) markWhole(t, seen);
}
for (const info of infos.values()) {
  for (const i of info.imports) {
    if (i.names === '*') markWhole(i.target);
    else for (const n of i.names) markUsed(i.target, n);
  }
}
/** Production files that only tests (or scripts) import: dead in the app, kept alive by their own tests. */
const importers = new Map<string, Set<string>>();
for (const info of infos.values()) for (const i of info.imports) (importers.get(i.target) ?? importers.set(i.target, new Set()).get(i.target)!).add(info.path);
const ENTRY = /(\.worker\.ts|node-worker\.ts)$/;
const testOnlyFiles = appFiles.filter((f) => {
  if (isTest(f) || FRAMEWORK.test(f) || ENTRY.test(f) || f.endsWith('/index.ts')) return false;
  const by = [...(importers.get(f) ?? [])];
  return by.length > 0 && by.every((b) => isTest(b) || b.startsWith('scripts/') || (b.endsWith('/index.ts') && !wholeModule.has(b) && !used.has(b)));
});
/** Barrels (index.ts) that nobody imports. */
const unusedBarrels = [...infos.keys()].filter((f) => f.endsWith('/index.ts') && !wholeModule.has(f) && !used.has(f));

/** Exported, imported by nobody (tests and scripts included) and unused in its own file: code that can go. */
const dead: string[] = [];
/** Exported but used only inside its own file: the export itself is noise. */
const needless: string[] = [];
for (const info of infos.values()) {
  if (isTest(info.path) || info.path.startsWith('scripts/') || FRAMEWORK.test(info.path)) continue;
  if (wholeModule.has(info.path)) continue;
  const u = used.get(info.path);
  const text = readFileSync(join(ROOT, info.path), 'utf8');
  for (const name of [...info.exports, ...info.reexports.keys()]) {
    if (u?.has(name)) continue;
    const uses = name === 'default' ? 2 : (text.match(new RegExp(`\\b${name}\\b`, 'g')) ?? []).length;
    (uses > 1 ? needless : dead).push(`${info.path}: ${name}`);
  }
}

// ---------------------------------------------------------------- report

const largest = appFiles
  .concat([...infos.keys()].filter((f) => f.startsWith('app/') && f.endsWith('.css')))
  .map((f) => ({ file: f, lines: infos.get(f)?.lines ?? 0 }))
  .sort((a, b) => b.lines - a.lines)
  .slice(0, 10);
const cssFiles = (function css(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) css(p, out);
    else if (name.endsWith('.css')) out.push(p);
  }
  return out;
})(ROOT + '/app').concat((function css(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) css(p, out);
    else if (name.endsWith('.css')) out.push(p);
  }
  return out;
})(ROOT + '/components'));
const largestCss = cssFiles
  .map((f) => ({ file: rel(f), lines: readFileSync(f, 'utf8').split('\n').length }))
  .sort((a, b) => b.lines - a.lines)
  .slice(0, 3);

const json = process.argv.includes('--json');
const report = {
  files: appFiles.length,
  fileCycles,
  folderCycles,
  logicInComponents,
  largest,
  largestCss,
  deadExports: dead,
  needlessExports: needless.length,
  unusedBarrels,
  testOnlyFiles,
};
if (json) {
  console.log(JSON.stringify(report, null, 2));
} else {
  console.log(`Architecture report: ${appFiles.length} source files (tests and scripts excluded from cycles)\n`);
  console.log(`import cycles between files: ${fileCycles.length}`);
  for (const c of fileCycles) console.log(`  ${c.join(' ↔ ')}`);
  console.log(`import cycles between feature folders: ${folderCycles.length}`);
  for (const c of folderCycles) console.log(`  ${c.join(' ↔ ')}`);
  console.log(`files in components/ with no React (logic that belongs in lib/): ${logicInComponents.length}, ${logicInComponents.reduce((n, f) => n + f.lines, 0)} lines`);
  for (const f of logicInComponents) console.log(`  ${f.file} (${f.lines})`);
  console.log('largest source files:');
  for (const f of largest) console.log(`  ${String(f.lines).padStart(5)}  ${f.file}`);
  console.log('largest stylesheets:');
  for (const f of largestCss) console.log(`  ${String(f.lines).padStart(5)}  ${f.file}`);
  console.log(`dead exports (imported by nothing, tests included, and unused in their own file): ${dead.length}`);
  for (const d of dead) console.log(`  ${d}`);
  console.log(`exports used only inside their own file: ${needless.length}`);
  console.log(`production files only tests or scripts import: ${testOnlyFiles.length}${testOnlyFiles.length ? ` (${testOnlyFiles.join(', ')})` : ''}`);
  console.log(`barrels (index.ts) nothing imports: ${unusedBarrels.length}${unusedBarrels.length ? ` (${unusedBarrels.join(', ')})` : ''}`);
}
if (process.argv.includes('--check') && (fileCycles.length > 0 || folderCycles.length > 0 || logicInComponents.length > 0 || dead.length > 0 || unusedBarrels.length > 0)) process.exit(1);
