// Reads results/ro-crate-metadata.json with the ro-crate library (npm) and
// checks it against results/MANIFEST.json and results/provenance/:
//  * the library loads it, and its root data entity has what RO-Crate 1.2
//    requires (the library's Validator, offline: the context is not fetched);
//  * one CreateAction per provenance record, its instrument a
//    SoftwareApplication with a SHA-256, every PropertyValue of its object the
//    value of a FormalParameter of that instrument;
//  * every file of a CreateAction that lies in the crate is in the manifest
//    with the same SHA-256, and every file of the manifest is the result of
//    exactly one CreateAction.
// Then the same checks on a copy with one hash changed must fail (the check
// can fail).
//
//   node check_crate.js NODE_MODULES RESULTS_DIR
'use strict';
const fs = require('fs');
const path = require('path');

const [modules, results] = process.argv.slice(2);
const { ROCrate, Validator } = require(path.join(modules, 'ro-crate'));

function asArray(v) { return v === undefined ? [] : Array.isArray(v) ? v : [v]; }
function types(e) { return asArray(e['@type']); }

async function problemsOf(json, manifest, records) {
  const problems = [];
  const crate = new ROCrate(json, { array: true, link: true });
  await crate.resolveContext();  // RO-Crate 1.2's context ships with the library: nothing is fetched
  const validator = new Validator(crate);
  validator.rootDataEntity();
  for (const r of validator.results.filter(r => r.status === 'error')) problems.push('RO-Crate: ' + r.message);
  const byId = new Map(json['@graph'].map(e => [e['@id'], e]));
  const actions = json['@graph'].filter(e => types(e).includes('CreateAction'));
  if (actions.length !== records.length)
    problems.push(`${actions.length} CreateActions for ${records.length} provenance records`);
  const madeBy = new Map();
  for (const a of actions) {
    const tool = byId.get(asArray(a.instrument)[0]?.['@id']);
    if (!tool || !types(tool).includes('SoftwareApplication') || !tool.sha256)
      problems.push(`${a['@id']}: its instrument is not a SoftwareApplication with a sha256`);
    const params = new Set(asArray(tool?.input).map(p => p['@id']));
    for (const ref of asArray(a.object).concat(asArray(a.result))) {
      const e = byId.get(ref['@id']);
      if (!e) { problems.push(`${a['@id']}: ${ref['@id']} is not in the crate`); continue; }
      if (types(e).includes('PropertyValue')) {
        if (!params.has(e.exampleOfWork?.['@id'])) problems.push(`${e['@id']}: not the value of a parameter of ${tool?.['@id']}`);
        continue;
      }
      if (ref['@id'].startsWith('#')) continue;  // a file outside the crate
      const m = manifest.files[ref['@id']];
      if (!m) problems.push(`${a['@id']}: ${ref['@id']} is not in MANIFEST.json`);
      else if (m.sha256 !== e.sha256) problems.push(`${ref['@id']}: sha256 ${e.sha256} in the crate, ${m.sha256} in MANIFEST.json`);
    }
    for (const ref of asArray(a.result))
      if (!ref['@id'].startsWith('#')) madeBy.set(ref['@id'], (madeBy.get(ref['@id']) || []).concat([a['@id']]));
  }
  for (const f of Object.keys(manifest.files)) {
    const by = madeBy.get(f) || [];
    if (by.length !== 1) problems.push(`${f}: made by ${by.length} CreateActions (${by.join(', ')})`);
  }
  return { problems, actions: actions.length };
}

async function main() {
  const text = fs.readFileSync(path.join(results, 'ro-crate-metadata.json'), 'utf8');
  const manifest = JSON.parse(fs.readFileSync(path.join(results, 'MANIFEST.json'), 'utf8'));
  const records = fs.readdirSync(path.join(results, 'provenance')).filter(f => f.endsWith('.json'));
  const { problems, actions } = await problemsOf(JSON.parse(text), manifest, records);
  if (problems.length) {
    console.log(`FAIL: ${problems.length} problem(s):\n  ` + problems.slice(0, 20).join('\n  '));
    process.exit(1);
  }
  console.log(`${actions} CreateActions agree with MANIFEST.json (${Object.keys(manifest.files).length} files)`);

  // The negative control: one File's hash changed.
  const tampered = JSON.parse(text);
  const file = tampered['@graph'].find(e => e['@id'] === 'paper.md');
  file.sha256 = '0'.repeat(64);
  const control = (await problemsOf(tampered, manifest, records)).problems;
  if (!control.some(p => p.startsWith('paper.md: sha256'))) {
    console.log('FAIL: a changed hash in the crate was not caught: ' + JSON.stringify(control.slice(0, 3)));
    process.exit(1);
  }
  console.log('a changed hash is caught: ' + control[0]);
}

main().catch(e => { console.log('FAIL: ' + e.stack); process.exit(1); });
