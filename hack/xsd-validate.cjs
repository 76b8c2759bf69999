// xsd-validate: validates XML files against an XML Schema with libxml2's xmllint, built for node
// (the npm package xmllint-wasm, pinned and installed by hack/tools.sh, which also writes the
// bin/xsd-validate wrapper that runs this script).
//
//   xsd-validate INSTALL_DIR --version
//   xsd-validate INSTALL_DIR SCHEMA.xsd FILE.xml...
//
// Exit status: 0 when every file is valid, 1 when one is not (xmllint's messages on stderr), 2 on a
// usage or read error.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const [dir, ...args] = process.argv.slice(2);
if (!dir || args.length === 0) {
  process.stderr.write('usage: xsd-validate INSTALL_DIR --version | SCHEMA.xsd FILE.xml...\n');
  process.exit(2);
}
const pkg = path.join(dir, 'node_modules', 'xmllint-wasm');
if (args[0] === '--version') {
  const { version } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
  process.stdout.write(`xmllint-wasm ${version}\n`);
  process.exit(0);
}
if (args.length < 2) {
  process.stderr.write('usage: xsd-validate INSTALL_DIR SCHEMA.xsd FILE.xml...\n');
  process.exit(2);
}
const { validateXML } = require(pkg);

const read = (file) => ({ fileName: path.basename(file), contents: fs.readFileSync(file, 'utf8') });

(async () => {
  const [schema, ...files] = args;
  const result = await validateXML({ schema: read(schema), xml: files.map(read), maxMemoryPages: 16384 });
  for (const e of result.errors) {
    process.stderr.write(`${e.rawMessage}\n`);
  }
  process.exit(result.valid ? 0 : 1);
})().catch((err) => {
  process.stderr.write(`xsd-validate: ${err.message}\n`);
  process.exit(2);
});
