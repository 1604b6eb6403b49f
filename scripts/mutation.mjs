// `npm run mutation [-- <module>...] [-- <stryker options>]`: mutation testing of the core, one Stryker
// run per module (scripts/mutation/modules.mjs), then the score per module, printed and written to
// docs/mutation.md. Without module names every module runs, one after the other (tens of minutes on
// two cores); e.g. `npm run mutation -- tokens providers` re-tests only those. The incremental files
// in docs/mutation/ make a re-run test only the mutants whose code or covering tests changed.
import { MODULES, isolated } from './mutation/modules.mjs';
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
  let code = await run(bin('stryker'), ['run', ...strykerArgs], { env: { MUTATION_MODULE: name } });
  // An unisolated module's static mutants were ignored; the isolated pass tests those and reuses every other result.
  if (code === 0 && !isolated(name)) {
    console.log(`\n=== mutation testing: ${name}, static mutants (isolated) ===`);
    code = await run(bin('stryker'), ['run', ...strykerArgs], { env: { MUTATION_MODULE: name, MUTATION_STATIC_PASS: '1' } });
  }
  if (code !== 0) failed++;
}
console.log('');
console.log(writeSummary());
process.exit(failed ? 1 : 0);
