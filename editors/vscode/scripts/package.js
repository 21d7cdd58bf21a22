#!/usr/bin/env node
// Packages the extension (compile it first: `npm run compile`) as .vsix files in dist/.
//
//   node scripts/package.js                  dist/parley.vsix: every platform, no parley inside
//   node scripts/package.js --all            dist/parley-<target>.vsix for each target below,
//                                            each carrying parley built for it
//   node scripts/package.js --target linux-x64 [--target …]
//   node scripts/package.js --proposed [...] the flavour that declares VS Code's proposed
//                                            chat API: dist/parley-proposed[-<target>].vsix
//
// What the Marketplace and Open VSX get is the default flavour: package.json as it is,
// which declares no proposed API. The proposed flavour adds enabledApiProposals, so that
// a VS Code that grants them (`--enable-proposed-api parley-acp.parley`) shows @parley's
// tool calls as its own tool entries; it cannot be published.
//
// Each package is assembled in a temporary folder (package.json, README.md, out/src, media
// (the chat's page and icon) and,
// for a target, bin/parley or bin/parley.exe), so nothing is written into the source tree
// but dist/. parley is built with `go build` for the target's GOOS and GOARCH, static
// (CGO_ENABLED=0), with the extension's version stamped in (as GoReleaser stamps a
// release), so that the extension and the parley it carries report the same version.
// A target that fails to build is reported with the reason, the others are still
// packaged, and the exit status is 1.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const here = path.resolve(__dirname, '..'); // editors/vscode
const repo = path.resolve(here, '../..');
const dist = path.join(here, 'dist');

/** VS Code's platform targets and the Go platform of the parley each one carries. */
const TARGETS = {
  'linux-x64': { goos: 'linux', goarch: 'amd64' },
  'linux-arm64': { goos: 'linux', goarch: 'arm64' },
  'darwin-x64': { goos: 'darwin', goarch: 'amd64' },
  'darwin-arm64': { goos: 'darwin', goarch: 'arm64' },
  'win32-x64': { goos: 'windows', goarch: 'amd64' },
};

/** The proposed API the proposed flavour declares (render.ts uses it when granted). */
const PROPOSALS = ['chatParticipantAdditions'];

/** The linker flag that stamps parley's version (as in .goreleaser.yaml). */
const VERSION_SYMBOL = 'github.com/parley-acp/parley/internal/version.release';

function usage(message) {
  if (message) process.stderr.write(`package.js: ${message}\n`);
  process.stderr.write('usage: node scripts/package.js [--proposed] [--all | --target TARGET ...]\n');
  process.stderr.write(`targets: ${Object.keys(TARGETS).join(', ')}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { proposed: false, targets: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--proposed') opts.proposed = true;
    else if (a === '--all') opts.targets.push(...Object.keys(TARGETS));
    else if (a === '--target') {
      const t = argv[++i];
      if (!(t in TARGETS)) usage(`unknown target "${t ?? ''}"`);
      opts.targets.push(t);
    } else usage(`unknown argument "${a}"`);
  }
  opts.targets = [...new Set(opts.targets)];
  return opts;
}

function copyDir(from, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) copyDir(path.join(from, e.name), path.join(to, e.name));
    else if (!e.name.endsWith('.map')) fs.copyFileSync(path.join(from, e.name), path.join(to, e.name));
  }
}

/** The first lines of a tool's error output, for the summary. */
function firstLines(text, n = 12) {
  const lines = text.trim().split('\n');
  return lines.slice(0, n).join('\n') + (lines.length > n ? `\n… (${lines.length - n} more lines)` : '');
}

/** Builds parley for target into file; returns undefined, or why it failed. */
function buildParley(target, version, file) {
  const { goos, goarch } = TARGETS[target];
  const args = ['build', '-trimpath', '-ldflags', `-s -w -X ${VERSION_SYMBOL}=v${version}`, '-o', file, './cmd/parley'];
  const res = spawnSync('go', args, { cwd: repo, env: { ...process.env, GOOS: goos, GOARCH: goarch, CGO_ENABLED: '0' }, encoding: 'utf8' });
  if (res.error) return `cannot run go: ${res.error.message}`;
  if (res.status !== 0) return `GOOS=${goos} GOARCH=${goarch} go build ./cmd/parley failed:\n${firstLines(res.stderr)}`;
  return undefined;
}

/** Runs vsce package in the staging folder stage; returns undefined, or why it failed. */
function vscePackage(stage, target, out) {
  const vsce = require.resolve('@vscode/vsce/vsce', { paths: [here] });
  // Relative links in the README point into the repository, where the extension is a
  // subfolder (vsce would take them as relative to the repository's root).
  const base = 'https://github.com/parley-acp/parley';
  const args = [vsce, 'package', '--no-dependencies', '-o', out,
    '--baseContentUrl', `${base}/blob/HEAD/editors/vscode`, '--baseImagesUrl', `${base}/raw/HEAD/editors/vscode`];
  if (target) args.push('--target', target);
  const res = spawnSync(process.execPath, args, { cwd: stage, encoding: 'utf8' });
  if (res.status !== 0) return `vsce package failed:\n${firstLines(`${res.stdout}\n${res.stderr}`)}`;
  return undefined;
}

/** Packages one .vsix; returns what the summary says about it. */
function packageOne(manifest, opts, target) {
  const name = `parley${opts.proposed ? '-proposed' : ''}${target ? `-${target}` : ''}.vsix`;
  const out = path.join(dist, name);
  fs.rmSync(out, { force: true }); // a failed target leaves no stale .vsix behind
  const stage = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-vsix-'));
  try {
    const m = { ...manifest };
    if (opts.proposed) m.enabledApiProposals = PROPOSALS;
    fs.writeFileSync(path.join(stage, 'package.json'), JSON.stringify(m, null, 2) + '\n');
    fs.copyFileSync(path.join(here, 'README.md'), path.join(stage, 'README.md'));
    fs.copyFileSync(path.join(here, 'LICENSE'), path.join(stage, 'LICENSE')); // Apache-2.0, as the repository
    fs.copyFileSync(path.join(here, '.vscodeignore'), path.join(stage, '.vscodeignore'));
    copyDir(path.join(here, 'out', 'src'), path.join(stage, 'out', 'src'));
    copyDir(path.join(here, 'media'), path.join(stage, 'media')); // the chat's page and icon
    let binary;
    if (target) {
      binary = path.join(stage, 'bin', TARGETS[target].goos === 'windows' ? 'parley.exe' : 'parley');
      fs.mkdirSync(path.dirname(binary));
      const failed = buildParley(target, manifest.version, binary);
      if (failed) return { name, target, failed };
    }
    const failed = vscePackage(stage, target, out);
    if (failed) return { name, target, failed };
    return { name, target, size: fs.statSync(out).size, binarySize: binary ? fs.statSync(binary).size : undefined };
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
}

function mib(n) {
  if (n === undefined) return '-';
  return n < 1048576 ? `${(n / 1024).toFixed(0)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(here, 'out', 'src', 'extension.js'))) usage('out/src/extension.js is missing: run `npm run compile` first');
  if (!fs.existsSync(path.join(here, 'media', 'web', 'app.js'))) usage('media/web/app.js is missing: run `npm run compile` first');
  const manifest = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
  if (manifest.enabledApiProposals || manifest.enableProposedApi) {
    usage('package.json declares proposed API: the published flavour must not (the proposed flavour adds it: --proposed)');
  }
  fs.mkdirSync(dist, { recursive: true });
  // Reproducible archives: the files' times are the commit's (vsce honours SOURCE_DATE_EPOCH).
  if (!process.env.SOURCE_DATE_EPOCH) {
    const git = spawnSync('git', ['log', '-1', '--format=%ct'], { cwd: repo, encoding: 'utf8' });
    if (git.status === 0 && git.stdout.trim()) process.env.SOURCE_DATE_EPOCH = git.stdout.trim();
  }
  const results = [];
  for (const target of opts.targets.length ? opts.targets : [undefined]) {
    process.stderr.write(`packaging ${target ?? 'universal'}${opts.proposed ? ' (proposed API)' : ''}\n`);
    results.push(packageOne(manifest, opts, target));
  }
  const rows = results.map((r) => [r.target ?? 'universal', path.join('dist', r.name), r.failed ? 'FAILED' : mib(r.size), r.failed ? '' : mib(r.binarySize)]);
  const header = ['target', '.vsix', 'size', 'parley inside'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  process.stdout.write([line(header), ...rows.map(line)].join('\n') + '\n');
  const failed = results.filter((r) => r.failed);
  for (const r of failed) process.stdout.write(`\n${r.target ?? 'universal'} was not packaged: ${r.failed}\n`);
  if (failed.length) {
    process.stdout.write(`\n${failed.length} of ${results.length} packages failed: ${failed.map((r) => r.target ?? 'universal').join(', ')}\n`);
    process.exit(1);
  }
}

main();
