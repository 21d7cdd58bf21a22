// Finding the parley binary. In order: the parley.path setting when it is set (the user's
// explicit choice, e.g. a parley built from a checkout), then the parley this extension
// carries (a platform .vsix holds bin/parley, built for that platform from the same
// release), then PATH, then where `go install` puts binaries (which is often not on PATH).

import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const INSTALL_COMMAND = 'go install github.com/parley-acp/parley/cmd/parley@latest';

/** parley could not be found; the message says where we looked and how to install it. */
export class ParleyNotFoundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ParleyNotFoundError';
  }
}

/** Where the parley in use was found. */
export type ParleySource = 'setting' | 'bundled' | 'path';

export interface FoundParley {
  path: string;
  source: ParleySource;
}

/** The binary's file name on this platform. */
export function binaryName(platform: NodeJS.Platform = process.platform): string {
  return platform === 'win32' ? 'parley.exe' : 'parley';
}

/** Where a platform .vsix keeps the parley it carries, inside the extension's folder. */
export function bundledPath(extensionDir: string, platform: NodeJS.Platform = process.platform): string {
  return path.join(extensionDir, 'bin', binaryName(platform));
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.stat(file)).isFile();
  } catch {
    return false;
  }
}

async function executable(file: string): Promise<boolean> {
  if (!(await isFile(file))) return false;
  try {
    await fs.access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The carried binary, made executable if an unpacker dropped its mode bits (a .vsix is a
 * zip; VS Code keeps the bits, other installers may not). undefined when there is none.
 */
async function bundled(extensionDir: string | undefined): Promise<string | undefined> {
  if (!extensionDir) return undefined;
  const file = bundledPath(extensionDir);
  if (!(await isFile(file))) return undefined;
  if (process.platform !== 'win32' && !(await executable(file))) {
    try {
      await fs.chmod(file, 0o755);
    } catch {
      // not ours to change (a read-only install): the check below says so
    }
  }
  if (await executable(file)) return file;
  throw new ParleyNotFoundError(`The parley this extension carries (${file}) is not executable. Reinstall the extension, or set parley.path to a parley binary.`);
}

/** The folders `go install` writes to: $GOBIN, else $GOPATH/bin for each GOPATH entry, else ~/go/bin. */
function goBinDirs(env: NodeJS.ProcessEnv): string[] {
  if (env.GOBIN) return [env.GOBIN];
  const gopath = env.GOPATH || path.join(os.homedir(), 'go');
  return gopath.split(path.delimiter).filter(Boolean).map((p) => path.join(p, 'bin'));
}

/**
 * Finds parley. configured is the parley.path setting ("" when unset); a setting that
 * points nowhere is an error, never silently replaced. extensionDir is the extension's
 * folder, where a platform .vsix carries parley.
 */
export async function findParley(configured: string, env: NodeJS.ProcessEnv = process.env, extensionDir?: string): Promise<FoundParley> {
  const name = binaryName();
  if (configured) {
    const resolved = configured.startsWith('~/') ? path.join(os.homedir(), configured.slice(2)) : configured;
    if (await executable(resolved)) return { path: path.resolve(resolved), source: 'setting' };
    throw new ParleyNotFoundError(
      `The setting parley.path is "${configured}", which is not an executable file. Fix the setting, or clear it to use ${extensionDir && (await isFile(bundledPath(extensionDir))) ? 'the parley this extension carries' : 'parley from PATH'}.`,
    );
  }
  const carried = await bundled(extensionDir);
  if (carried) return { path: carried, source: 'bundled' };
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...dirs, ...goBinDirs(env)]) {
    const candidate = path.join(dir, name);
    if (await executable(candidate)) return { path: path.resolve(candidate), source: 'path' };
  }
  throw new ParleyNotFoundError(
    `parley was not found on PATH or in ${goBinDirs(env).join(', ')}. Install the parley extension for your platform (its .vsix carries parley), or install parley with \`${INSTALL_COMMAND}\` (Go 1.26 or later), or set parley.path to the binary.`,
  );
}

/** Returns the absolute path of parley (see findParley). */
export async function locateParley(configured: string, env: NodeJS.ProcessEnv = process.env, extensionDir?: string): Promise<string> {
  return (await findParley(configured, env, extensionDir)).path;
}
