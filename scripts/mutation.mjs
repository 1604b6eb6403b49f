// `npm run mutation [-- <module>...] [-- <stryker options>]`: mutation testing of the core, one Stryker
// run per module (scripts/mutation/modules.mjs), then the score per module, printed and written to
// docs/mutation.md. Without module names every module runs, one after the other (tens of minutes on
// two cores); e.g. `npm run mutation -- tokens providers` re-tests only those. The incremental files
// in docs/mutation/ make a re-run test only the mutants whose code or covering tests changed.
import { MODULES } from './mutation/modules.mjs';
import { writeSummary } from './mutation/report.mjs';
import { bin, run } from './lib.mjs';

const args = process.argv.slice(2);
const named = args.filter((a) => a in MODULES);
const strykerArgs = args.filter((a) => !(a in MODULES));
const unknown = strykerArgs.filter((a) => !a.startsWith('-') && !strykerArgs[strykerArgs.indexOf(a) - 1]?.startsWith('-'));
if (unknown.length) {
  console.error(`unknown module(s): ${unknown.join(', ')}; modules: ${Object.keys(MODULES).join(', ')}`);
  process.exit(2);
}

let failed = 0;
for (const name of named.length ? named : Object.keys(MODULES)) {
  console.log(`\n=== mutation testing: ${name} ===`);
  const code = await run(bin('stryker'), ['run', ...strykerArgs], { env: { MUTATION_MODULE: name } });
  if (code !== 0) failed++;
}
console.log('');
console.log(writeSummary());
process.exit(failed ? 1 : 0);
