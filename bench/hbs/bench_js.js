// The handlebars.js side of hbs_bench: precompiles the same templates (Handlebars.precompile, as
// a build step would), renders them with the same context in a timed loop and prints
// {"renders_per_sec": N, "output": "..."} so the caller can check both engines agree.
// usage: node bench_js.js REPO_ROOT TEMPLATE_DIR MAIN_NAME CONTEXT.json
// Protocol on stdin/stdout, one line each: it first prints {"output": ...}; then for every line
// "SECONDS" it reads, it renders for that long and prints {"renders_per_sec": N}.
'use strict';
const fs = require('fs');
const path = require('path');
const [root, dir, mainName, contextFile] = process.argv.slice(2);
const Handlebars = require(path.join(root, 'node_modules', 'handlebars'));
const hb = Handlebars.create();

// The alknet-hbs code-generation helpers this template uses, as plain JS.
hb.registerHelper('mul', function () {
  let r = arguments[0];
  for (let i = 1; i < arguments.length - 1; i++) r *= arguments[i];
  return r;
});
hb.registerHelper('eq', (a, b) => a === b);
hb.registerHelper('join', (a, sep) => a.join(sep));
hb.registerHelper('times', function (n, options) {
  let out = '';
  const data = Handlebars.createFrame(options.data);
  for (let i = 0; i < n; i++) {
    data.index = i; data.key = i; data.first = i === 0; data.last = i === n - 1;
    out += options.fn(this, { data, blockParams: [i] });
  }
  return out;
});

const options = { noEscape: true };  // alknet-hbs's code-generation default
function precompiled(src) {
  const spec = Handlebars.precompile(src, options);
  return hb.template(new Function('return ' + spec)());
}
function walk(d, prefix) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const rel = prefix ? prefix + '/' + e.name : e.name;
    if (e.isDirectory()) walk(path.join(d, e.name), rel);
    else if (rel.endsWith('.hbs')) {
      const name = rel.slice(0, -4);
      const tpl = precompiled(fs.readFileSync(path.join(d, e.name), 'utf8'));
      if (name !== mainName) hb.registerPartial(name, tpl);
      else templates.main = tpl;
    }
  }
}
const templates = {};
walk(dir, '');
const context = JSON.parse(fs.readFileSync(contextFile, 'utf8'));
const output = templates.main(context);
process.stdout.write(JSON.stringify({ output }) + '\n');

let sink = 0;
function measure(seconds) {
  let n = 0;
  const budget = seconds * 1e9;
  const t0 = process.hrtime.bigint();
  let elapsed = 0n;
  while (Number(elapsed) < budget) {
    for (let i = 0; i < 50; i++) sink += templates.main(context).length;
    n += 50;
    elapsed = process.hrtime.bigint() - t0;
  }
  return n / (Number(elapsed) / 1e9);
}
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const rate = measure(Number(line));
  process.stdout.write(JSON.stringify({ renders_per_sec: rate, sink }) + '\n');
});
