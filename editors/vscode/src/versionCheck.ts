// Telling the user when the parley in use is not the version of this extension: once per
// binary (path, size and time: a rebuilt or updated parley is checked again), with what
// to do about it, which depends on where that parley was found.

import { promises as fs } from 'node:fs';
import type { LogSink } from './backend';
import type { FoundParley } from './locate';
import { backendVersion, compareVersions, type BackendVersion, type VersionCheck } from './version';

export const COPY_INSTALL = 'Copy Install Command';
export const OPEN_SETTINGS = 'Open Settings';

/** The install command for the parley of version (an extension version, "0.2.0"). */
export function installCommandFor(version: string): string {
  return `go install github.com/parley-acp/parley/cmd/parley@v${version}`;
}

/** The warning for a parley whose version is not the extension's, and the actions it offers. */
export function mismatchWarning(found: FoundParley, check: Extract<VersionCheck, { result: 'mismatch' }>): { message: string; actions: string[] } {
  const what = `parley ${check.backend} (${found.path}) is not the version of this extension (${check.extension}), so some features may fail.`;
  switch (found.source) {
    case 'setting':
      return { message: `${what} The setting parley.path chose it: point it to parley v${check.extension}, or clear it to use the parley this extension carries or the one on PATH.`, actions: [OPEN_SETTINGS] };
    case 'bundled':
      return { message: `${what} It is the parley this extension carries: reinstall the extension.`, actions: [] };
    case 'path':
      return {
        message: `${what} Install parley v${check.extension} (\`${installCommandFor(check.extension)}\`, or a release archive), install the parley extension for your platform, which carries it, or set parley.path.`,
        actions: [COPY_INSTALL, OPEN_SETTINGS],
      };
  }
}

export interface VersionCheckerOptions {
  /** The extension's version, package.json's "X.Y.Z". */
  extensionVersion: string;
  log: LogSink;
  /** Shows a warning with buttons; resolves with the one chosen. */
  warn(message: string, ...actions: string[]): Thenable<string | undefined>;
  copy(text: string): Thenable<void>;
  openSettings(): Thenable<unknown>;
  /** Asks a binary its version (`parley --version`; tests may replace it). */
  version?(bin: string): Promise<BackendVersion>;
}

export class VersionChecker {
  private readonly checked = new Map<string, Promise<VersionCheck>>();

  constructor(private readonly opts: VersionCheckerOptions) {}

  /** Checks found once per binary; warns when its version is not the extension's. Never rejects. */
  async check(found: FoundParley): Promise<VersionCheck> {
    const st = await fs.stat(found.path).catch(() => undefined);
    const key = `${found.path}\0${st?.size}\0${st?.mtimeMs}`;
    let done = this.checked.get(key);
    if (!done) {
      done = this.run(found);
      this.checked.set(key, done);
    }
    return done;
  }

  private async run(found: FoundParley): Promise<VersionCheck> {
    const version = await (this.opts.version ?? backendVersion)(found.path);
    const check = compareVersions(this.opts.extensionVersion, version);
    const from = { setting: 'the parley.path setting', bundled: 'carried by this extension', path: 'found on PATH' }[found.source];
    switch (check.result) {
      case 'match':
        this.opts.log.appendLine(`[client] parley v${check.version} at ${found.path} (${from}): the version of this extension`);
        break;
      case 'unknown':
        this.opts.log.appendLine(`[client] parley at ${found.path} (${from}) says its version is "${check.backend}": a development build, or too old to say; it may not match this extension (${check.extension})`);
        break;
      case 'mismatch': {
        this.opts.log.appendLine(`[client] parley ${check.backend} at ${found.path} (${from}) is not the version of this extension (${check.extension})`);
        const { message, actions } = mismatchWarning(found, check);
        void Promise.resolve(this.opts.warn(message, ...actions)).then((choice) => {
          if (choice === COPY_INSTALL) void this.opts.copy(installCommandFor(check.extension));
          if (choice === OPEN_SETTINGS) void this.opts.openSettings();
        });
        break;
      }
    }
    return check;
  }
}
