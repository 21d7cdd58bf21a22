// Whether the parley in use is the one this extension was released with. The extension
// and parley are released together with one version (a release tag vX.Y.Z, the
// extension's package.json X.Y.Z); the protocol between them may change between
// releases. parley says its version on `parley --version` ("parley version v0.2.0"): a
// release stamps it, a build from a checkout says "devel …" and `go install …@<commit>`
// a pseudo-version, neither of which can be compared.

import { execFile } from 'node:child_process';

/** What `parley --version` says, as far as the comparison needs. */
export type BackendVersion =
  | { kind: 'release'; version: string } // "0.2.0", "0.2.1-rc.1" (without the v)
  | { kind: 'development'; text: string } // devel, a pseudo-version, a snapshot
  | { kind: 'unknown'; text: string }; // no answer, or not the expected shape

/** Go's pseudo-versions (v0.0.0-20260101120000-1a2b3c4d5e6f and its variants): a commit, not a release. */
const PSEUDO = /-(?:0\.)?(?:\d+\.)?\d{14}-[0-9a-f]{12}(?:\+.*)?$/;

/** Parses the output of `parley --version`. */
export function parseVersionOutput(output: string): BackendVersion {
  const text = output.trim();
  const m = /^parley version (\S.*)$/m.exec(text);
  if (!m) return { kind: 'unknown', text: text.slice(0, 200) };
  const v = m[1].trim();
  const release = /^v?(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\+[0-9A-Za-z.-]+)?$/.exec(v);
  if (!release || PSEUDO.test(v) || /-snapshot\./.test(v)) return { kind: 'development', text: v };
  return { kind: 'release', version: release[1] };
}

/** The three ways the backend's version can relate to the extension's. */
export type VersionCheck =
  | { result: 'match'; version: string }
  | { result: 'mismatch'; backend: string; extension: string }
  | { result: 'unknown'; backend: string; extension: string };

/** Compares the backend's version with the extension's (package.json's "X.Y.Z"). */
export function compareVersions(extension: string, backend: BackendVersion): VersionCheck {
  const ext = extension.replace(/^v/, '');
  if (backend.kind === 'release') {
    return backend.version === ext ? { result: 'match', version: ext } : { result: 'mismatch', backend: `v${backend.version}`, extension: ext };
  }
  return { result: 'unknown', backend: backend.text || '(no version)', extension: ext };
}

/** Runs `bin --version`; a parley that does not answer within timeoutMs is "unknown". */
export function backendVersion(bin: string, timeoutMs = 10_000): Promise<BackendVersion> {
  return new Promise((resolve) => {
    execFile(bin, ['--version'], { timeout: timeoutMs, windowsHide: true }, (err, stdout, stderr) => {
      if (err) return resolve({ kind: 'unknown', text: `${bin} --version failed: ${err.message.split('\n')[0]}${stderr ? ` (${String(stderr).trim().slice(0, 200)})` : ''}` });
      resolve(parseVersionOutput(String(stdout)));
    });
  });
}
