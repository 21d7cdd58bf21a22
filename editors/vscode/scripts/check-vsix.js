#!/usr/bin/env node
// Checks the .vsix files scripts/package.js wrote, as a store and a user would get them.
//
//   node scripts/check-vsix.js [FILE.vsix ...]      default: every dist/*.vsix
//
// For each: vsce reads it back (its own manifest validation); it holds only what the
// extension needs; a package for the stores (any but parley-proposed*) declares no
// proposed API and has a release version, the rules `vsce publish` applies before it
// uploads (so it needs no --allow-proposed-apis); the proposed flavour declares exactly
// the proposal render.ts uses. A platform package names its target in its manifest and
// carries bin/parley (parley.exe on Windows), executable, built for that system and
// processor (read from the binary's header; signed, for Apple silicon); on the machine's
// own platform the binary is run and must print the extension's version. A universal package carries no parley.
// Prints a table of sizes; exits 1 when anything is wrong.
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const vsceDir = path.dirname(require.resolve('@vscode/vsce/package.json', { paths: [here] }));
const { readVSIXPackage } = require(path.join(vsceDir, 'out', 'zip.js'));
const yauzl = require(require.resolve('yauzl', { paths: [vsceDir] }));

const PROPOSALS = ['chatParticipantAdditions'];

/** What each target's binary must be: its format and processor as its header says. */
const TARGETS = {
  'linux-x64': { format: 'ELF', arch: 'x86-64', node: ['linux', 'x64'] },
  'linux-arm64': { format: 'ELF', arch: 'arm64', node: ['linux', 'arm64'] },
  'darwin-x64': { format: 'Mach-O', arch: 'x86-64', node: ['darwin', 'x64'] },
  'darwin-arm64': { format: 'Mach-O', arch: 'arm64', node: ['darwin', 'arm64'] },
  'win32-x64': { format: 'PE', arch: 'x86-64', node: ['win32', 'x64'] },
};

/** The executable format and processor of a binary, from its first bytes. */
function binaryKind(b) {
  if (b.length >= 20 && b.readUInt32BE(0) === 0x7f454c46) {
    const machine = b.readUInt16LE(18);
    return { format: 'ELF', arch: { 0x3e: 'x86-64', 0xb7: 'arm64' }[machine] ?? `machine 0x${machine.toString(16)}` };
  }
  if (b.length >= 32 && b.readUInt32LE(0) === 0xfeedfacf) {
    const cpu = b.readUInt32LE(4);
    // macOS on Apple silicon runs only signed code; Go's linker signs ad hoc
    // (LC_CODE_SIGNATURE, load command 0x1d), even when cross-compiling.
    let signed = false;
    for (let i = 0, off = 32, n = b.readUInt32LE(16); i < n && off + 8 <= b.length; i++) {
      if (b.readUInt32LE(off) === 0x1d) signed = true;
      off += b.readUInt32LE(off + 4);
    }
    return { format: 'Mach-O', arch: { 0x01000007: 'x86-64', 0x0100000c: 'arm64' }[cpu] ?? `cputype 0x${cpu.toString(16)}`, signed };
  }
  if (b.length >= 64 && b.toString('latin1', 0, 2) === 'MZ') {
    const pe = b.readUInt32LE(0x3c);
    if (b.length >= pe + 6 && b.toString('latin1', pe, pe + 4) === 'PE\0\0') {
      const machine = b.readUInt16LE(pe + 4);
      return { format: 'PE', arch: { 0x8664: 'x86-64', 0xaa64: 'arm64' }[machine] ?? `machine 0x${machine.toString(16)}` };
    }
  }
  return { format: 'unknown', arch: 'unknown' };
}

/** Every entry of the zip: name, unix mode, size, and the contents of those wanted. */
function readEntries(file, wanted) {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const entries = [];
      zip.on('error', reject);
      zip.on('end', () => resolve(entries));
      zip.on('entry', (e) => {
        const entry = { name: e.fileName, mode: (e.externalFileAttributes >>> 16) & 0o777, size: e.uncompressedSize };
        entries.push(entry);
        if (!wanted(e.fileName)) return zip.readEntry();
        zip.openReadStream(e, (err2, stream) => {
          if (err2) return reject(err2);
          const chunks = [];
          stream.on('data', (c) => chunks.push(c));
          stream.on('error', reject);
          stream.on('end', () => {
            entry.data = Buffer.concat(chunks);
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** What the file name says the package is: parley[-proposed][-<target>].vsix. */
function expected(file) {
  const m = /^parley(-proposed)?(?:-([a-z0-9]+-[a-z0-9]+))?\.vsix$/.exec(path.basename(file));
  if (!m) return undefined;
  return { proposed: !!m[1], target: m[2] };
}

/** Whether a path inside the .vsix belongs in it. */
function allowed(name) {
  return ['[Content_Types].xml', 'extension.vsixmanifest', 'extension/package.json', 'extension/readme.md'].includes(name)
    || /^extension\/out\/src\/[^/]+\.js$/.test(name)
    || /^extension\/bin\/parley(\.exe)?$/.test(name)
    || /^extension\/media\/web\/(app\.js|style\.css)$/.test(name) // the chat's page (parley: Open Chat)
    || name === 'extension/media/parley.svg'
    || /^extension\/LICENSE(\.txt)?$/.test(name); // Apache-2.0, which the stores require
}

async function check(file) {
  const problems = [];
  const want = expected(file);
  if (!want) return { file, problems: [`the name is not parley[-proposed][-<target>].vsix`] };
  if (want.target && !(want.target in TARGETS)) return { file, problems: [`unknown target ${want.target}`] };
  let vsix;
  try {
    vsix = await readVSIXPackage(file);
  } catch (err) {
    return { file, problems: [`vsce cannot read it: ${err.message}`] };
  }
  const { manifest } = vsix;
  const identity = vsix.xmlManifest.PackageManifest.Metadata[0].Identity[0].$;
  if (want.proposed) {
    if (JSON.stringify(manifest.enabledApiProposals) !== JSON.stringify(PROPOSALS)) problems.push(`the proposed flavour declares ${JSON.stringify(manifest.enabledApiProposals)}, not ${JSON.stringify(PROPOSALS)}`);
  } else {
    if (manifest.enabledApiProposals !== undefined) problems.push(`declares proposed API ${JSON.stringify(manifest.enabledApiProposals)}: the Marketplace refuses it`);
    if (manifest.enableProposedApi) problems.push('sets enableProposedApi: the Marketplace refuses it');
    if (/^\d+\.\d+\.\d+-/.test(manifest.version)) problems.push(`version ${manifest.version} is a prerelease: the Marketplace refuses it`);
  }
  if ((identity.TargetPlatform ?? undefined) !== want.target) problems.push(`its manifest's target is ${identity.TargetPlatform ?? 'none (universal)'}, its name says ${want.target ?? 'universal'}`);

  const entries = await readEntries(file, (name) => name.startsWith('extension/bin/'));
  for (const e of entries) if (!allowed(e.name)) problems.push(`holds ${e.name}, which the extension does not need`);
  if (!entries.some((e) => e.name === 'extension/out/src/extension.js')) problems.push('lacks extension/out/src/extension.js');
  if (!entries.some((e) => /^extension\/LICENSE(\.txt)?$/.test(e.name))) problems.push('lacks its LICENSE: a store refuses it');
  for (const page of ['extension/media/web/app.js', 'extension/media/web/style.css']) {
    if (!entries.some((e) => e.name === page)) problems.push(`lacks ${page}: "parley: Open Chat" would show nothing`);
  }
  const bins = entries.filter((e) => e.name.startsWith('extension/bin/'));
  let binary;
  if (!want.target) {
    if (bins.length) problems.push(`a universal package carries ${bins.map((e) => e.name).join(', ')}`);
  } else {
    const t = TARGETS[want.target];
    const name = t.format === 'PE' ? 'extension/bin/parley.exe' : 'extension/bin/parley';
    binary = bins.find((e) => e.name === name);
    if (!binary || bins.length !== 1) problems.push(`should carry exactly ${name}; carries ${bins.map((e) => e.name).join(', ') || 'nothing'}`);
    if (binary) {
      const kind = binaryKind(binary.data);
      if (kind.format !== t.format || kind.arch !== t.arch) problems.push(`${name} is ${kind.format} ${kind.arch}, not ${t.format} ${t.arch}`);
      if (want.target === 'darwin-arm64' && !kind.signed) problems.push(`${name} has no code signature: macOS on Apple silicon would not run it`);
      if (t.format !== 'PE' && (binary.mode & 0o755) !== 0o755) problems.push(`${name} has mode ${binary.mode.toString(8)}: not executable once unpacked`);
      const runnable = kind.format === t.format && kind.arch === t.arch && t.node[0] === process.platform && t.node[1] === process.arch;
      if (runnable) {
        const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-check-vsix-'));
        try {
          const exe = path.join(tmp, path.basename(name));
          fs.writeFileSync(exe, binary.data, { mode: 0o755 });
          const out = execFileSync(exe, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
          if (out !== `parley version v${manifest.version}`) problems.push(`${name} --version says "${out}", not "parley version v${manifest.version}"`);
          binary.ran = out;
        } catch (err) {
          problems.push(`${name} --version failed: ${String(err.message).split('\n')[0]}`);
        } finally {
          fs.rmSync(tmp, { recursive: true, force: true });
        }
      }
    }
  }
  return { file, problems, size: fs.statSync(file).size, binarySize: binary?.size, ran: binary?.ran };
}

async function main() {
  let files = process.argv.slice(2);
  if (files.length === 0) {
    const dist = path.join(here, 'dist');
    files = fs.existsSync(dist) ? fs.readdirSync(dist).filter((f) => f.endsWith('.vsix')).sort().map((f) => path.join(dist, f)) : [];
    if (files.length === 0) {
      process.stderr.write('check-vsix: no .vsix in dist/: run npm run package:all first\n');
      process.exit(1);
    }
  }
  const mib = (n) => (n === undefined ? "-" : n < 1048576 ? `${(n / 1024).toFixed(0)} KiB` : `${(n / 1048576).toFixed(1)} MiB`);
  let bad = 0;
  for (const file of files) {
    const r = await check(file);
    const ok = r.problems.length === 0;
    if (!ok) bad++;
    process.stdout.write(`${ok ? 'ok  ' : 'BAD '} ${path.basename(file).padEnd(32)} ${mib(r.size).padStart(9)}  parley ${mib(r.binarySize).padStart(9)}${r.ran ? `  (${r.ran})` : ''}\n`);
    for (const p of r.problems) process.stdout.write(`       ${p}\n`);
  }
  process.exit(bad ? 1 : 0);
}

main().catch((err) => {
  process.stderr.write(`check-vsix: ${err.stack ?? err}\n`);
  process.exit(1);
});
